package dev.tributary.storage;

import java.io.FileNotFoundException;

/** No object has the requested key. The message names the store location and the key. */
public final class ObjectNotFoundException extends FileNotFoundException {
  private final String key;

  public ObjectNotFoundException(String location, String key) {
    super("No object '" + key + "' in " + location);
    this.key = key;
  }

  /** The key that was not found. */
  public String key() {
    return key;
  }
}
