/**
 * The state store's implementation: the RocksDB working copy, the changelog and snapshot file
 * format, and the naming and retention of state files. Not an API.
 */
package dev.tributary.checkpoint.state.internal;
