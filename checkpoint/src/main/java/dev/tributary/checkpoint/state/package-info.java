/**
 * The versioned key/value state of stateful operators (deduplication, window aggregation), one
 * store per operator. Version {@code v} is the state after batch {@code v}; each commit uploads the
 * batch's changes as a changelog, and every few versions a full snapshot, both under the
 * checkpoint's {@code state/<operatorId>/}. The working copy is a local RocksDB database, so large
 * state stays off the Java heap; the uploaded files use Tributary's own format (see {@code
 * docs/CHECKPOINT_FORMAT.md}) and never depend on RocksDB's version.
 */
package dev.tributary.checkpoint.state;
