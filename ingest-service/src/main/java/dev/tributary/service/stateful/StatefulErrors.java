package dev.tributary.service.stateful;

import java.time.Instant;

/** The messages a record is quarantined with by the stateful operators, built in one place. */
final class StatefulErrors {
  private StatefulErrors() {}

  static String windowOutOfRange(String column, Instant eventTime, String bound, Instant value) {
    return "column '"
        + column
        + "': event time "
        + eventTime
        + " falls in a window whose "
        + bound
        + " "
        + value
        + " is outside the years 0001-9999 that Delta timestamps hold";
  }
}
