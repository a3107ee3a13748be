package dev.tributary.service.join;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.JoinSpec;
import dev.tributary.config.JoinType;
import dev.tributary.config.Size;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The join operator over a real local-disk Delta dimension table. */
class StreamJoinsTest {
  static final StructType STREAM =
      StructType.of(
          StructField.nullable("order_id", PrimitiveType.LONG),
          StructField.nullable("customer_id", PrimitiveType.STRING));

  @TempDir Path dir;
  DimensionTables customers;

  @BeforeEach
  void createDimension() throws Exception {
    customers =
        DimensionTables.create(
            dir.resolve("customers"),
            List.of(
                customer("c1", "gold", "eu", 1),
                customer("c2", "silver", "us", 2),
                customer("c2", "bronze", "us", 3),
                customer(null, "orphan", "eu", 4)));
  }

  private JoinSpec join(JoinType type, Optional<List<String>> columns, Size maxSize) {
    return new JoinSpec(
        customers.path().toString(),
        Optional.empty(),
        List.of("customer_id"),
        type,
        maxSize,
        columns);
  }

  private StreamJoins open(JoinSpec... joins) throws Exception {
    return StreamJoins.open(
        "orders", List.of(joins), STREAM, j -> ObjectStores.open(j.path(), null));
  }

  private static List<List<Object>> apply(StreamJoins joins, Object[]... rows) {
    return Arrays.stream(rows).flatMap(r -> joins.apply(r).stream()).map(Arrays::asList).toList();
  }

  @Test
  void aLeftJoinKeepsEveryRowAndEmitsOneRowPerMatch() throws Exception {
    try (StreamJoins joins =
        open(join(JoinType.LEFT, Optional.empty(), JoinSpec.DEFAULT_MAX_SIZE))) {
      assertThat(joins.outputSchema().fieldNames())
          .containsExactly("order_id", "customer_id", "segment", "region", "tier");
      assertThat(joins.plan()).isEqualTo(Map.of("join.0.version", "1"));

      assertThat(
              apply(
                  joins,
                  new Object[] {1L, "c1"},
                  new Object[] {2L, "c2"},
                  new Object[] {3L, "c9"},
                  new Object[] {4L, null}))
          .containsExactly(
              List.of(1L, "c1", "gold", "eu", 1L),
              List.of(2L, "c2", "silver", "us", 2L),
              List.of(2L, "c2", "bronze", "us", 3L),
              Arrays.asList(3L, "c9", null, null, null),
              Arrays.asList(4L, null, null, null, null));
    }
  }

  @Test
  void anInnerJoinDropsRowsWithoutAMatchAndAddsOnlyThePickedColumnsInTableOrder() throws Exception {
    try (StreamJoins joins =
        open(
            join(
                JoinType.INNER,
                Optional.of(List.of("tier", "segment")),
                JoinSpec.DEFAULT_MAX_SIZE))) {
      joins.plan();

      assertThat(joins.outputSchema().fieldNames())
          .containsExactly("order_id", "customer_id", "segment", "tier");
      assertThat(
              apply(
                  joins,
                  new Object[] {1L, "c1"},
                  new Object[] {2L, "c2"},
                  new Object[] {3L, "c9"},
                  new Object[] {4L, null}))
          .containsExactly(
              List.of(1L, "c1", "gold", 1L),
              List.of(2L, "c2", "silver", 2L),
              List.of(2L, "c2", "bronze", 3L));
    }
  }

  @Test
  void reloadsOnlyWhenTheVersionChangedAndPinsAnEarlierVersionExactly() throws Exception {
    try (StreamJoins joins =
        open(join(JoinType.LEFT, Optional.of(List.of("segment")), JoinSpec.DEFAULT_MAX_SIZE))) {
      joins.plan();
      joins.plan();
      joins.pin(Map.of("join.0.version", "1"));
      assertThat(joins.loads()).containsExactly(1L);

      long v2 = customers.replace(List.<Object[]>of(customer("c1", "platinum", "eu", 9)));
      assertThat(joins.plan()).isEqualTo(Map.of("join.0.version", Long.toString(v2)));
      assertThat(joins.loads()).containsExactly(2L);
      assertThat(apply(joins, new Object[] {1L, "c1"}))
          .containsExactly(List.of(1L, "c1", "platinum"));

      joins.pin(Map.of("join.0.version", "1")); // a replay of a batch planned at version 1
      assertThat(joins.versions()).containsExactly(1L);
      assertThat(apply(joins, new Object[] {1L, "c1"})).containsExactly(List.of(1L, "c1", "gold"));
      joins.pin(Map.of()); // an entry written before the join existed: the latest
      assertThat(joins.versions()).containsExactly(v2);
    }
  }

  @Test
  void refusesADimensionLargerThanMaxSizeBeforeLoadingIt() throws Exception {
    try (StreamJoins joins = open(join(JoinType.LEFT, Optional.empty(), new Size(100)))) {
      assertThatThrownBy(joins::plan)
          .isInstanceOf(JoinException.class)
          .hasMessageStartingWith(
              "Pipeline orders: join[0]: the dimension table "
                  + customers.path()
                  + " at version 1 holds ")
          .hasMessageContaining(
              "bytes) of data files, more than its max-size of 100B; it was not loaded."
                  + " Raise join[0].max-size");
      assertThat(joins.loads()).containsExactly(0L);
    }
  }

  @Test
  void refusesKeysOfAnotherTypeMissingKeysAndColumnsTheStreamHas() throws Exception {
    StructType longKeys = StructType.of(StructField.nullable("customer_id", PrimitiveType.LONG));
    JoinSpec left = join(JoinType.LEFT, Optional.empty(), JoinSpec.DEFAULT_MAX_SIZE);
    assertThatThrownBy(
            () ->
                StreamJoins.open(
                    "orders", List.of(left), longKeys, j -> ObjectStores.open(j.path(), null)))
        .isInstanceOf(JoinException.class)
        .hasMessageStartingWith(
            "Pipeline orders: join[0].on: key 'customer_id' is long in the stream but string in"
                + " the dimension table "
                + customers.path()
                + "; keys must have the same type on both sides");

    StructType clash =
        StructType.of(
            StructField.nullable("customer_id", PrimitiveType.STRING),
            StructField.nullable("region", PrimitiveType.STRING));
    assertThatThrownBy(
            () ->
                StreamJoins.open(
                    "orders", List.of(left), clash, j -> ObjectStores.open(j.path(), null)))
        .isInstanceOf(JoinException.class)
        .hasMessageContaining(
            "has a column 'region' that the stream already has; pick the columns to add with"
                + " join[0].columns");

    JoinSpec byName =
        new JoinSpec(
            customers.path().toString(),
            Optional.empty(),
            List.of("order_id"),
            JoinType.INNER,
            JoinSpec.DEFAULT_MAX_SIZE,
            Optional.empty());
    assertThatThrownBy(() -> open(byName))
        .isInstanceOf(JoinException.class)
        .hasMessageContaining("join[0].on: key 'order_id' is not a column of the dimension table");
    assertThatThrownBy(
            () ->
                open(
                    join(JoinType.LEFT, Optional.of(List.of("segmnt")), JoinSpec.DEFAULT_MAX_SIZE)))
        .isInstanceOf(JoinException.class)
        .hasMessageContaining("join[0].columns: 'segmnt' is not a column of the dimension table");
  }

  @Test
  void namesTheJoinWhenTheDimensionTableDoesNotExist() {
    JoinSpec missing =
        new JoinSpec(
            dir.resolve("nowhere").toString(),
            Optional.empty(),
            List.of("customer_id"),
            JoinType.LEFT,
            JoinSpec.DEFAULT_MAX_SIZE,
            Optional.empty());

    assertThatThrownBy(() -> open(missing))
        .isInstanceOf(JoinException.class)
        .hasMessage(
            "Pipeline orders: join[0]: cannot read the dimension table "
                + dir.resolve("nowhere")
                + "; check join[0].delta.path and its storage settings")
        .cause()
        .hasMessageStartingWith("No Delta table at " + dir.resolve("nowhere"));
  }
}
