/**
 * The {@code tributary} command line ({@link dev.tributary.service.cli.Main}): {@code demo}, {@code
 * validate}, {@code run}, {@code compact}, {@code vacuum}, {@code serve}, {@code compare}. Exit
 * codes 0 success, 1 a pipeline failed, 2 invalid arguments or declaration; errors are one readable
 * paragraph on stderr ({@link dev.tributary.service.cli.ErrorMessages}), with the declaration's
 * secrets masked.
 */
package dev.tributary.service.cli;
