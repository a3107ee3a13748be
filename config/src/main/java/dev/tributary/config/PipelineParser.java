package dev.tributary.config;

import dev.tributary.config.internal.PipelineReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Parses and validates pipeline files (one pipeline per file, the format of {@code
 * docs/PIPELINE_REFERENCE.md}).
 *
 * <p>Every scalar value first has its {@code ${NAME}} / {@code ${NAME:-default}} references
 * replaced, then is converted to its type. All problems are collected, each with file, line, column
 * and key path, and thrown together as a {@link PipelineValidationException}. Thread-safe and
 * stateless.
 */
public final class PipelineParser {

  private PipelineParser() {}

  /**
   * Parses a pipeline file (UTF-8), resolving {@code ${NAME}} from {@link System#getenv()}. Errors
   * name the file as given.
   *
   * @throws PipelineValidationException when the file cannot be read, is not valid YAML or is not a
   *     valid pipeline; it lists every problem found
   */
  public static PipelineSpec parse(Path file) {
    return parse(file, System.getenv());
  }

  /**
   * Parses a pipeline file (UTF-8), resolving {@code ${NAME}} from {@code env}.
   *
   * @throws PipelineValidationException when the file cannot be read, is not valid YAML or is not a
   *     valid pipeline; it lists every problem found
   */
  public static PipelineSpec parse(Path file, Map<String, String> env) {
    String text;
    try {
      byte[] bytes = Files.readAllBytes(file);
      text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (NoSuchFileException e) {
      throw PipelineReader.unreadable(file.toString(), "no such file");
    } catch (CharacterCodingException e) {
      throw PipelineReader.unreadable(file.toString(), "it is not UTF-8 text");
    } catch (IOException e) {
      throw PipelineReader.unreadable(file.toString(), e.toString());
    }
    return parse(text, file.toString(), env);
  }

  /**
   * Parses pipeline text.
   *
   * @param yaml the YAML text of one pipeline
   * @param sourceName the name errors are reported under, such as the file name
   * @param env the variables {@code ${NAME}} references are resolved from
   * @throws PipelineValidationException listing every problem found
   */
  public static PipelineSpec parse(String yaml, String sourceName, Map<String, String> env) {
    Objects.requireNonNull(yaml, "yaml");
    Objects.requireNonNull(sourceName, "sourceName");
    Map<String, String> variables = Map.copyOf(env);
    return PipelineReader.read(yaml, sourceName, variables::get);
  }
}
