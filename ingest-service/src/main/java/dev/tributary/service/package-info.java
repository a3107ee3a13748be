/**
 * The Tributary service: the Spring Boot application ({@link
 * dev.tributary.service.TributaryApplication}, used by {@code serve} only; the other commands run
 * without a Spring context). Its packages: {@code cli} (the command line), {@code pipeline} (a
 * declaration compiled and opened as a run), {@code engine} (the run loop, the batch body, the
 * progress models), {@code source} (Kafka and Delta sources), {@code parse}, {@code expr}, {@code
 * join} and {@code stateful} (what a batch does to records), {@code exchange} (stateful pipelines
 * in consumer-group mode), {@code registry} (the schema registry client), {@code server} (REST,
 * health, metrics, supervision of served pipelines) and {@code demo}. This is the only module that
 * uses Spring and kafka-clients.
 */
package dev.tributary.service;
