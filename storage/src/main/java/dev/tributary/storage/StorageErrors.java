package dev.tributary.storage;

import java.net.URI;

/**
 * Every user-facing error message of this module, in one place so that they stay consistent: each
 * says what failed, where (store, key) and how to fix it.
 */
final class StorageErrors {
  private StorageErrors() {}

  static String invalidKey(String key, String problem) {
    return "Invalid object key '"
        + key
        + "': "
        + problem
        + ". Keys are relative paths with '/'"
        + " separators and no empty, '.' or '..' segments; fix the key";
  }

  static String reservedLocalKey(String key, String root) {
    return "Invalid object key '"
        + key
        + "' for "
        + root
        + ": segments starting with '"
        + LocalObjectStore.TEMP_PREFIX
        + "' are reserved for in-progress writes; rename the key";
  }

  static String negativeRange(String key, long offset, int length) {
    return "Invalid range of '"
        + key
        + "': offset "
        + offset
        + " and length "
        + length
        + " must not be negative";
  }

  static String localPathConflict(String key, String root, String detail) {
    return "Cannot write '"
        + key
        + "' in "
        + root
        + ": "
        + detail
        + ". A local store cannot hold"
        + " both an object 'a' and objects under 'a/'; use distinct key names";
  }

  static String localHardLinksUnsupported(String root, String detail) {
    return "Cannot create objects exclusively in "
        + root
        + ": the file system does not support"
        + " hard links ("
        + detail
        + "), which put-if-absent needs; use a local file system such as"
        + " ext4 or xfs, or S3";
  }

  static String localIo(String operation, String key, String root, Exception cause) {
    return "Local " + operation + " of '" + key + "' in " + root + " failed: " + cause;
  }

  static String invalidLocation(String location, String problem) {
    return "Invalid storage location '" + location + "': " + problem;
  }

  static String noSuchBucket(String bucket, String endpoint) {
    return "S3 bucket '"
        + bucket
        + "' does not exist at "
        + endpoint
        + ": create it or fix the path";
  }

  static String accessDenied(String url, String code, String endpoint) {
    return "Access denied to "
        + url
        + " at "
        + endpoint
        + " ("
        + code
        + "): check the access key"
        + " / credentials and that they may access this bucket";
  }

  static String noCredentials(String url, String detail) {
    return "No S3 credentials for "
        + url
        + " ("
        + detail
        + "): set an access key and secret key,"
        + " or configure the AWS default credential chain (environment, profile or role)";
  }

  static String unreachable(String url, String endpoint, String detail) {
    return "Cannot reach S3 endpoint "
        + endpoint
        + " for "
        + url
        + " ("
        + detail
        + "): check the"
        + " endpoint URL, that the server is running and the network";
  }

  static String s3Failed(String operation, String url, String endpoint, String detail) {
    return "S3 " + operation + " of " + url + " at " + endpoint + " failed: " + detail;
  }

  static String stateUnknown(String url, String endpoint, String detail) {
    return "S3 put-if-absent of "
        + url
        + " at "
        + endpoint
        + " failed after the request was"
        + " sent, so whether the object was created is unknown ("
        + detail
        + "); read it back"
        + " to find out, never delete it";
  }

  static String endpointName(URI endpoint, String region) {
    return endpoint == null ? "AWS S3 (" + region + ")" : endpoint.toString();
  }
}
