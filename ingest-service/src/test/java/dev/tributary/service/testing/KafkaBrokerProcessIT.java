package dev.tributary.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerProcessIT {
  @Test
  void startsARealBrokerInItsOwnProcess(@TempDir Path dir) throws Exception {
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir)) {
      Properties p = new Properties();
      p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      try (Admin admin = Admin.create(p)) {
        admin.createTopics(List.of(new NewTopic("probe", 2, (short) 1))).all().get();
        assertThat(admin.listTopics().names().get()).contains("probe");
      }
    }
  }
}
