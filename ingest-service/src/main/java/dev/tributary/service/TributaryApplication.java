package dev.tributary.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Entry point of the Tributary service and command line. */
@SpringBootApplication
public class TributaryApplication {
  public static void main(String[] args) {
    SpringApplication.run(TributaryApplication.class, args);
  }
}
