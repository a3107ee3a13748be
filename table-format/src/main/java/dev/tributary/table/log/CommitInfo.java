package dev.tributary.table.log;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code commitInfo} action: free-form provenance of one commit. Delta gives it no semantics;
 * we write {@code timestamp}, {@code operation}, {@code engineInfo}, a unique {@code txnId} (how a
 * writer recognizes its own commit after an I/O error of unknown outcome) and caller extras.
 *
 * @param values JSON-compatible values (String, Number, Boolean, List, Map, null), in order
 */
public record CommitInfo(Map<String, Object> values) implements Action {
  /** Field holding the unique id of the committing transaction. */
  public static final String TXN_ID = "txnId";

  public CommitInfo {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  @Override
  public String kind() {
    return "commitInfo";
  }

  /** The unique transaction id, if the writer recorded one. */
  public Optional<String> txnId() {
    Object id = values.get(TXN_ID);
    return id instanceof String s ? Optional.of(s) : Optional.empty();
  }
}
