package dev.tributary.service.pipeline;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.sink.route.RoutedSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Delta tables a pipeline's Delta sink writes, for maintenance: its one table, or, with {@code
 * route}, every table under the folder of its routes (docs/DESIGN.md, "Routing to many tables").
 */
public final class SinkTables {
  private SinkTables() {}

  /**
   * One table of the sink.
   *
   * @param location its path, for messages
   * @param store its store (a view of the folder's store for a routed table: closing the folder's
   *     store is enough)
   */
  public record Table(String location, ObjectStore store) {}

  /**
   * Opens the store that holds the sink's tables: the table's own, or the folder of a routed sink's
   * tables. Close it after the tables' work.
   */
  public static ObjectStore openStore(PipelineSpec spec) throws IOException {
    return PipelineFactory.store(spec, spec.sink().tablesFolder());
  }

  /**
   * The sink's tables in {@code store} (from {@link #openStore}): the one table (which may not
   * exist yet), or the routed tables that exist now, in route order.
   */
  public static List<Table> in(PipelineSpec spec, ObjectStore store) throws IOException {
    if (spec.sink().route().isEmpty()) {
      return List.of(new Table(spec.sink().path(), store));
    }
    List<Table> tables = new ArrayList<>();
    for (String route : RoutedSink.existingRoutes(store)) {
      tables.add(new Table(spec.sink().tablePath(route), ObjectStores.under(store, route)));
    }
    return tables;
  }
}
