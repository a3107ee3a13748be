package dev.tributary.service.server;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.Assignment;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.source.KafkaSourceSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code groups} of {@code GET /api/pipelines/{id}} for a pipeline in group assignment: this
 * instance's memberships, from the active run ({@link ManagedPipeline#groupMembers}), joined with
 * the broker's description of each group ({@code Admin.describeConsumerGroups}).
 *
 * <p>The description never fails or holds up the endpoint, and a polling dashboard does not load
 * the broker: one description per pipeline is reused for {@link ServeSettings#healthCacheFor()}; at
 * most one is in flight, bounded by {@link ServeSettings#healthTimeout()}; once a pipeline has a
 * description, an older one is answered at once while a fresh one is fetched ({@code describedAt}
 * says when it was taken); only the very first request waits, at most the timeout. A failure is
 * shown in the group's {@code error}, with the pipeline's secrets masked. One Admin client per
 * pipeline (with the pipeline's Kafka properties: its security settings), opened on first use.
 */
final class ConsumerGroups implements AutoCloseable {
  private final Duration timeout;
  private final long cacheNanos;
  private final LongSupplier nanoTime;
  private final Clock clock;
  private final Map<String, Lookup> lookups = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();

  ConsumerGroups(Duration timeout, Duration cacheFor, LongSupplier nanoTime, Clock clock) {
    this.timeout = timeout;
    this.cacheNanos = cacheFor.toNanos();
    this.nanoTime = nanoTime;
    this.clock = clock;
  }

  /**
   * The groups of {@code p}, its source's group first; null for a pipeline that is not in group
   * assignment (its REST output has no {@code groups}).
   */
  List<GroupStatus> of(ManagedPipeline p) {
    Optional<KafkaSourceSpec> kafka = p.spec().flatMap(PipelineSpec::kafkaSource);
    if (kafka.isEmpty() || kafka.get().assignment() != Assignment.GROUP) {
      return null;
    }
    Map<String, GroupMember.Snapshot> own = new LinkedHashMap<>();
    for (GroupMember.Snapshot s : p.groupMembers()) {
      own.put(s.groupId(), s);
    }
    Set<String> ids = new LinkedHashSet<>();
    ids.add(KafkaSourceSettings.consumerGroup(p.id()));
    ids.addAll(own.keySet());
    Described described =
        lookups
            .computeIfAbsent(p.id(), id -> new Lookup(p.spec().orElseThrow()))
            .describe(List.copyOf(ids));
    List<GroupStatus> out = new ArrayList<>();
    for (String id : ids) {
      out.add(status(p, id, own.get(id), described));
    }
    return out;
  }

  private static GroupStatus status(
      ManagedPipeline p, String id, GroupMember.Snapshot self, Described described) {
    ConsumerGroupDescription group = described.groups().get(id);
    List<GroupStatus.Member> members = new ArrayList<>();
    if (group != null) {
      for (MemberDescription m : group.members()) {
        members.add(
            new GroupStatus.Member(
                m.consumerId(),
                m.clientId(),
                m.host(),
                names(m.assignment().topicPartitions()),
                self != null && m.consumerId().equals(self.memberId())));
      }
      members.sort(
          Comparator.comparing(GroupStatus.Member::clientId)
              .thenComparing(GroupStatus.Member::memberId));
    }
    String error = described.error() == null ? null : p.mask(described.error());
    if (error == null && group == null && described.describedAt() != null) {
      error = ServerMessages.groupNotDescribed(id);
    }
    return new GroupStatus(
        id,
        self == null ? null : self.memberId(),
        self == null ? null : self.clientId(),
        self == null ? null : self.generation(),
        self == null ? List.of() : self.assigned().stream().map(ConsumerGroups::name).toList(),
        group == null ? null : group.groupState().name(),
        group == null || group.partitionAssignor().isEmpty() ? null : group.partitionAssignor(),
        members,
        described.describedAt(),
        error);
  }

  private static List<String> names(Set<TopicPartition> partitions) {
    return partitions.stream()
        .map(tp -> new SourcePartition(tp.topic(), tp.partition()))
        .sorted()
        .map(ConsumerGroups::name)
        .toList();
  }

  private static String name(SourcePartition p) {
    return p.topic() + "/" + p.partition();
  }

  /** Description requests sent to brokers so far (what the cache saves is visible in tests). */
  long requests() {
    return requests.get();
  }

  @Override
  public void close() {
    lookups.values().forEach(Lookup::close);
  }

  /**
   * A description of a pipeline's groups, by group id, or why there is none (or only an older one).
   */
  private record Described(
      Map<String, ConsumerGroupDescription> groups, Instant describedAt, String error) {}

  /** The cached description of one pipeline's groups: a single flight, reused until it is old. */
  private final class Lookup {
    private final PipelineSpec spec;
    // Guarded by this.
    private Admin admin;
    private KafkaFuture<Map<String, ConsumerGroupDescription>> inFlight;
    private Described last;
    private List<String> lastIds;
    private long lastAt;

    Lookup(PipelineSpec spec) {
      this.spec = spec;
    }

    Described describe(List<String> ids) {
      KafkaFuture<Map<String, ConsumerGroupDescription>> waitFor;
      Described stale;
      synchronized (this) {
        // a failure is reused as long as a success: a broker that is down is not asked more often
        boolean fresh =
            last != null && nanoTime.getAsLong() - lastAt < cacheNanos && ids.equals(lastIds);
        if (fresh) {
          return last;
        }
        waitFor = inFlight;
        if (waitFor == null) {
          try {
            waitFor = start(ids);
          } catch (RuntimeException e) {
            // an unusable client configuration (an unresolvable bootstrap address): nothing in
            // flight
            done(null, e, ids);
            return last;
          }
          // a request that completed at once has been recorded by done() already; otherwise done()
          // (which needs this lock) clears the field when it completes
          if (!waitFor.isDone()) {
            inFlight = waitFor;
          }
        }
        stale = ids.equals(lastIds) ? last : null;
      }
      if (stale != null) {
        return stale; // the refresh serves the next request
      }
      // The outcome from the future itself: done() runs in a callback that may not have run yet.
      try {
        return new Described(
            Map.copyOf(waitFor.get(timeout.toMillis(), TimeUnit.MILLISECONDS)),
            clock.instant(),
            null);
      } catch (TimeoutException e) {
        return new Described(Map.of(), null, ServerMessages.groupNoAnswer(ids, timeout));
      } catch (ExecutionException e) {
        return new Described(Map.of(), null, failure(ids, e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Described(Map.of(), null, ServerMessages.groupNoAnswer(ids, timeout));
      }
    }

    /**
     * Holding the lock: sends one description request, bounded by the timeout. Its outcome is
     * recorded when it completes, on the Admin client's thread (or here, if it already has).
     */
    private KafkaFuture<Map<String, ConsumerGroupDescription>> start(List<String> ids) {
      if (admin == null) {
        admin = Admin.create(adminProperties(spec, timeout));
      }
      requests.incrementAndGet();
      KafkaFuture<Map<String, ConsumerGroupDescription>> started =
          admin
              .describeConsumerGroups(
                  ids, new DescribeConsumerGroupsOptions().timeoutMs((int) timeout.toMillis()))
              .all();
      started.whenComplete(
          (groups, error) -> {
            synchronized (this) {
              done(groups, error, ids);
            }
          });
      return started;
    }

    /** Holding the lock: records an outcome; a failure keeps the groups of the last success. */
    private void done(
        Map<String, ConsumerGroupDescription> groups, Throwable error, List<String> ids) {
      inFlight = null;
      lastAt = nanoTime.getAsLong();
      boolean sameGroups = ids.equals(lastIds);
      lastIds = ids;
      if (error == null) {
        last = new Described(Map.copyOf(groups), clock.instant(), null);
        return;
      }
      String message = failure(ids, error);
      last =
          last == null || !sameGroups
              ? new Described(Map.of(), null, message)
              : new Described(last.groups(), last.describedAt(), message);
    }

    void close() {
      Admin open;
      synchronized (this) {
        open = admin;
        admin = null;
      }
      // outside the lock: closing completes the request in flight, whose callback takes the lock
      if (open != null) {
        open.close(Duration.ofSeconds(1));
      }
    }
  }

  private static String failure(List<String> ids, Throwable error) {
    Throwable cause =
        error instanceof ExecutionException && error.getCause() != null ? error.getCause() : error;
    return ServerMessages.groupDescribeFailed(ids, Failures.describe(cause, Secrets.NONE));
  }

  private static Properties adminProperties(PipelineSpec spec, Duration timeout) {
    KafkaSourceSpec kafka = spec.kafkaSource().orElseThrow();
    Properties props = new Properties();
    // The pipeline's consumer properties carry the security settings (SASL, TLS) the broker needs.
    props.putAll(kafka.properties());
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-" + spec.id() + "-rest");
    return props;
  }
}
