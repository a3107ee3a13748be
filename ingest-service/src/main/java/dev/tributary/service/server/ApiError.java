package dev.tributary.service.server;

/**
 * The JSON body of every REST error.
 *
 * @param status the HTTP status code
 * @param error the HTTP reason phrase
 * @param message what failed and how to fix it
 */
public record ApiError(int status, String error, String message) {}
