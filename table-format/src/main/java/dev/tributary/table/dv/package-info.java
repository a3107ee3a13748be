/**
 * Delta deletion vectors: the sets of deleted row indexes of data files ({@link
 * dev.tributary.table.dv.RoaringBitmapArray}, both serializations Delta reads), their descriptors
 * in the log ({@link dev.tributary.table.dv.DeletionVectorDescriptor}: inline, relative and
 * absolute storage), the file format with its checksums ({@link
 * dev.tributary.table.dv.DeletionVectorFile}), {@link dev.tributary.table.dv.Z85}, and reading and
 * writing them in a table's store ({@link dev.tributary.table.dv.DeletionVectors}). Used by every
 * reader of data files (the rows a vector names are never returned) and by writers that delete rows
 * without rewriting files. Depends on storage and RoaringBitmap only; knows nothing of the log.
 */
package dev.tributary.table.dv;
