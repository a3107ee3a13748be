package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON of {@code GET /api/pipelines/{id}} with the web layer's mapper (Jackson 3): an exclusive
 * pipeline's output has no {@code groups} key; a group pipeline's has the documented shape.
 */
class PipelineDetailsJsonTest {
  private final JsonMapper json = JsonMapper.builder().build();

  @Test
  void anExclusivePipelineHasNoGroupsKey() {
    JsonNode node = json.valueToTree(new PipelineDetails(null, List.of(), null));
    assertThat(node.has("groups")).as(node.toString()).isFalse();
    assertThat(node.has("progress")).isTrue();
  }

  @Test
  void aGroupPipelineShowsItsGroups() {
    GroupStatus group =
        new GroupStatus(
            "tributary-orders",
            "m-1",
            "tributary-orders-host/42",
            3,
            List.of("orders/0", "orders/1"),
            "STABLE",
            "cooperative-sticky",
            List.of(
                new GroupStatus.Member(
                    "m-1",
                    "tributary-orders-host/42",
                    "/127.0.0.1",
                    List.of("orders/0", "orders/1"),
                    true)),
            Instant.parse("2026-12-01T10:00:00Z"),
            null);
    JsonNode g =
        json.valueToTree(new PipelineDetails(null, List.of(), List.of(group))).get("groups").get(0);
    assertThat(g.get("groupId").asString()).isEqualTo("tributary-orders");
    assertThat(g.get("assigned").get(1).asString()).isEqualTo("orders/1");
    assertThat(g.get("generation").asInt()).isEqualTo(3);
    assertThat(g.get("members").get(0).get("self").asBoolean()).isTrue();
    assertThat(g.has("error")).isTrue();
  }
}
