/**
 * Test fixtures for every module that stores objects, shipped in the storage test-jar: {@link
 * dev.tributary.storage.testing.InMemoryObjectStore} (a complete in-memory store), {@link
 * dev.tributary.storage.testing.FaultInjectingObjectStore} (fail the next N calls, or do them and
 * then fail), {@link dev.tributary.storage.testing.S3TestServer} (a real S3 API server in a child
 * JVM) and {@link dev.tributary.storage.testing.ObjectStoreContractTest} (the behaviour every store
 * implementation must pass). These are stable APIs for the other modules' tests; they use only
 * JUnit, AssertJ, Awaitility, SLF4J, the AWS SDK and the storage module itself.
 */
package dev.tributary.storage.testing;
