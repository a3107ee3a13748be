/**
 * {@code tributary compare}: two Delta tables (or two versions of one) compared row for row. {@link
 * dev.tributary.service.compare.TableComparison} is the comparison (a multiset of whole rows, as
 * SQL's {@code EXCEPT ALL}, and optionally by key), spilled to local disk in hash partitions so
 * that a table larger than the heap can be compared; {@link
 * dev.tributary.service.compare.ComparedTable} opens a table at a version as a source of rows. This
 * package reads tables only; it never writes to them.
 */
package dev.tributary.service.compare;
