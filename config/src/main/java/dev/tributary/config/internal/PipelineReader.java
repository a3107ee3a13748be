package dev.tributary.config.internal;

import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.PipelineValidationException;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.SourceSpec;
import dev.tributary.config.TransformStep;
import dev.tributary.config.TriggerSpec;
import java.io.StringReader;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.DocumentStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Turns the text of one pipeline file into a {@link PipelineSpec}: composes the YAML node tree (no
 * Java objects are constructed from tags, so a file cannot instantiate anything), converts every
 * key with its position, runs the cross-part checks, and throws every problem at once.
 */
public final class PipelineReader {

  private PipelineReader() {}

  /**
   * Reads a pipeline.
   *
   * @param yaml the file text
   * @param sourceName the name errors are reported under
   * @param env the environment variables for {@code ${NAME}} references (returns null when unset)
   * @throws PipelineValidationException with every problem found
   */
  public static PipelineSpec read(String yaml, String sourceName, Function<String, String> env) {
    Problems problems = new Problems(sourceName);
    Node document = compose(yaml, problems);
    if (document != null) {
      YamlNodes nodes = new YamlNodes(problems, env);
      problems.locate("", null, document.getStartMark());
      YamlMap root = nodes.map(document, "", Keys.ROOT);
      if (root != null) {
        Draft draft = draft(nodes, root);
        new SpecValidator(problems, draft).validate();
        if (problems.isEmpty()) {
          return build(draft, problems.secrets());
        }
      }
    }
    throw new PipelineValidationException(problems.errors());
  }

  /** Reports an error that concerns the file as a whole (it could not be read). */
  public static PipelineValidationException unreadable(String sourceName, String reason) {
    Problems problems = new Problems(sourceName);
    problems.add(null, "", Messages.unreadable(reason));
    return new PipelineValidationException(problems.errors());
  }

  private static Node compose(String yaml, Problems problems) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowRecursiveKeys(false);
    options.setMaxAliasesForCollections(50);
    try {
      Iterator<Node> documents = new Yaml(options).composeAll(new StringReader(yaml)).iterator();
      if (!documents.hasNext()) {
        problems.add(new Mark("", 0, 0, 0, new int[0], 0), "", Messages.emptyFile());
        return null;
      }
      Node first = documents.next();
      if (documents.hasNext()) {
        problems.add(
            secondDocumentStart(yaml, documents.next().getStartMark()),
            "",
            Messages.multipleDocuments());
        return null;
      }
      if (YamlNodes.isNull(first)) {
        problems.add(first.getStartMark(), "", Messages.emptyFile());
        return null;
      }
      return first;
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      problems.add(mark, "", Messages.syntax(describe(e)));
      return null;
    } catch (YAMLException e) {
      problems.add(null, "", Messages.syntax(e.getMessage()));
      return null;
    }
  }

  /**
   * The position of the second document's {@code ---}, found from the event stream (error path
   * only).
   */
  private static Mark secondDocumentStart(String yaml, Mark fallback) {
    int documents = 0;
    for (Event event : new Yaml(new LoaderOptions()).parse(new StringReader(yaml))) {
      if (event instanceof DocumentStartEvent && ++documents == 2) {
        return event.getStartMark();
      }
    }
    return fallback;
  }

  private static String describe(MarkedYAMLException e) {
    String problem = e.getProblem() == null ? "malformed document" : e.getProblem();
    return e.getContext() == null ? problem : problem + " (" + e.getContext() + ")";
  }

  private static Draft draft(YamlNodes nodes, YamlMap root) {
    SourceReader source = new SourceReader(nodes);
    QueryReader query = new QueryReader(nodes);
    OutputReader output = new OutputReader(nodes, source);
    ScheduleReader schedules = new ScheduleReader(nodes, query);
    EvolutionReader evolution = new EvolutionReader(nodes, output);
    String id = output.id(root);
    SourceSpec sourceSpec = source.source(root, output);
    EvolutionReader.Quarantine quarantine = evolution.quarantine(root);
    FormatSpec format = source.format(root, sourceSpec);
    List<TransformStep> transforms = query.transforms(root);
    JoinReader.Joins joins =
        new JoinReader(nodes, source, output, query).joins(root, sourceSpec, format, transforms);
    Draft draft =
        new Draft(
            id,
            sourceSpec,
            format,
            transforms,
            joins.statics(),
            joins.streams(),
            query.watermark(root),
            query.deduplicate(root),
            query.aggregate(root),
            output.outputMode(root),
            new SinkReader(nodes, output).sinks(root, sourceSpec),
            quarantine.table(),
            output.sideTable(root, "late-events"),
            output.checkpoint(root),
            schedules.trigger(root),
            schedules.maintenance(root),
            schedules.backfill(root),
            output.storage(root),
            evolution.schemaEvolution(root),
            quarantine.limit(),
            new ExpectationReader(nodes).expectations(root));
    root.finish();
    return draft;
  }

  private static PipelineSpec build(Draft d, Secrets secrets) {
    return new PipelineSpec(
        d.id(),
        d.source(),
        Optional.ofNullable(d.format()),
        d.transforms(),
        d.joins(),
        d.streamJoins().stream().findFirst(),
        Optional.ofNullable(d.watermark()),
        Optional.ofNullable(d.deduplicate()),
        Optional.ofNullable(d.aggregate()),
        d.outputMode(),
        EnvelopeReader.withDefaults(
            SinkRules.withDefaults(d.sinks(), d.outputMode(), d.aggregate()), d.format()),
        d.quarantine() != null
            ? d.quarantine()
            : DeltaTableSpec.quarantineFor(d.sinks(), d.checkpoint()),
        Optional.ofNullable(d.lateEvents()),
        d.checkpoint(),
        d.trigger() != null ? d.trigger() : TriggerSpec.DEFAULT,
        d.maintenance(),
        Optional.ofNullable(d.backfill()),
        Optional.ofNullable(d.storage()),
        secrets,
        d.schemaEvolution() != null ? d.schemaEvolution() : SchemaEvolutionSpec.DEFAULT,
        Optional.ofNullable(d.quarantineLimit()),
        d.expectations() != null ? d.expectations() : List.of());
  }
}
