/**
 * Implementation of the checkpoint files: key naming, the versioned JSON file format, the JSON
 * mapping of entries and lease files, put-if-absent with idempotent retry, entries described in
 * words, this process as a lease names it, and the module's error messages. Not an API: only {@link
 * dev.tributary.checkpoint} uses it.
 */
package dev.tributary.checkpoint.internal;
