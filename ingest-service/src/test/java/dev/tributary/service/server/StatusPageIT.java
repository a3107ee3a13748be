package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.testing.S3TestServer;
import java.io.File;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The status page in a real browser: Debian's headless Chromium driven by Selenium opens {@code /}
 * of a {@code serve} (child JVM, token configured) running a live pipeline over a real Kafka broker
 * and the S3 test server. The page must ask for the token (the API refuses it without one, and a
 * wrong one), then show the pipeline, draw every chart that has data with uPlot (points in the
 * chart's data and the series' color on its canvas), list batches, sink commits and quarantined
 * records, stop and start the pipeline with its buttons (observed through the API), and show the
 * API's refusal of a range backfill posted with its form. Leaves a screenshot at {@code
 * target/status-page.png}. That test is skipped, saying so, where Chromium is missing; the others
 * check the endpoints behind the page over HTTP, and the page and API of {@code run --ui-port} (a
 * child JVM), whose stop button ends the run with exit code 0.
 */
class StatusPageIT {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "page-token-" + UUID.randomUUID();
  private static final String AUTH = "Bearer " + TOKEN;
  private static final Duration SLOW = Duration.ofMinutes(2);

  private static final Map<String, String> ENV =
      Map.of(
          "S3_ACCESS_KEY", S3TestServer.ACCESS_KEY,
          "S3_SECRET_KEY", S3TestServer.SECRET_KEY,
          "TRIBUTARY_API_TOKEN", TOKEN);

  @TempDir static Path dir;
  private static KafkaBrokerProcess broker;
  private static S3TestServer s3;
  private static String bucket;
  private static String topic;
  private static Process serve;
  private static Path log;
  private static Http http;
  private static String base;
  private static ChromeDriver browser;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBrokerProcess.shared();
    s3 = S3TestServer.shared();
    bucket = s3.createBucket();
    topic = broker.newTopic("clicks", 2);
    produce(broker, topic, 0, 300);

    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(pipelines.resolve("clicks.yaml"), pipeline("clicks"));

    int port = ChildJvm.freePort();
    log = dir.resolve("serve.log");
    serve =
        ChildJvm.start(
            List.of("-Xmx384m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            log,
            dir,
            ENV);
    base = "http://127.0.0.1:" + port;
    http = new Http(base);
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .failFast("serve exited:\n" + ChildJvm.tail(log), () -> !serve.isAlive())
        .until(() -> progressCount() >= 3);
  }

  /**
   * A pipeline over the topic (at most 50 records a batch, so that the charts get several points),
   * with a rule that some records violate, into its own table and checkpoint.
   */
  private static String pipeline(String id) {
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 50
        format:
          json:
            schema: { id: long, page: string }
        expectations:
          - name: id_not_multiple_of_ten
            check: "id %% 10 <> 0"
            on-violation: warn
        sink:
          delta:
            path: s3://%s/tables/%s
        checkpoint: s3://%s/checkpoints/%s
        storage:
          s3: { endpoint: "%s", region: us-east-1, path-style: true,
                access-key: "${S3_ACCESS_KEY}", secret-key: "${S3_SECRET_KEY}" }
        trigger: { processing-time: 300ms }
        """
        .formatted(id, broker.bootstrapServers(), topic, bucket, id, bucket, id, s3.endpoint());
  }

  @Test
  void runServesThePageOfItsPipelineAndStopsFromIt() throws Exception {
    Path file = Files.writeString(dir.resolve("clicks-run.yaml"), pipeline("clicks-run"));
    int port = ChildJvm.freePort();
    Path runLog = dir.resolve("run.log");
    Process run =
        ChildJvm.start(
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString(), "--ui-port", Integer.toString(port)),
            runLog,
            dir,
            ENV);
    try {
      Http ui = new Http("http://127.0.0.1:" + port);
      await()
          .atMost(SLOW)
          .pollInterval(Duration.ofMillis(300))
          .ignoreExceptions()
          .failFast("run exited", () -> !run.isAlive())
          .until(
              () ->
                  JSON.readTree(ui.get("/api/pipelines/clicks-run?last=100", AUTH).body())
                          .get("progress")
                          .size()
                      >= 3);
      assertThat(ChildJvm.tail(runLog))
          .contains("Status page of pipeline clicks-run: http://127.0.0.1:" + port + "/");
      assertThat(ui.get("/", null).body()).contains("status.js");
      assertThat(ui.get("/api/pipelines", null).statusCode()).isEqualTo(401);
      JsonNode list = JSON.readTree(ui.get("/api/pipelines", AUTH).body());
      assertThat(list).hasSize(1);
      assertThat(list.get(0).get("id").asText()).isEqualTo("clicks-run");
      assertThat(list.get(0).get("state").asText()).isEqualTo("RUNNING");
      assertThat(JSON.readTree(ui.get("/api/ui", AUTH).body()).get("mode").asText())
          .isEqualTo("run");
      JsonNode commits =
          JSON.readTree(ui.get("/api/pipelines/clicks-run/commits?last=2", AUTH).body());
      assertThat(commits).hasSize(2);
      assertThat(commits.get(0).get("operation").asText()).isEqualTo("WRITE");
      assertThat(commits.get(0).get("table").asText()).endsWith("/tables/clicks-run");

      assertThat(ui.post("/api/pipelines/clicks-run/stop", null).statusCode()).isEqualTo(401);
      assertThat(run.isAlive()).isTrue();
      assertThat(ui.post("/api/pipelines/clicks-run/stop", AUTH).statusCode()).isEqualTo(202);
      assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("the run ends after its stop").isTrue();
      assertThat(run.exitValue()).as(ChildJvm.tail(runLog)).isZero();
    } finally {
      run.destroyForcibly().waitFor();
    }
  }

  /** Starts the browser, or skips the test that needs it where there is none. */
  private static void openBrowser() {
    Assumptions.assumeTrue(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "StatusPageIT's browser test skipped: no headless Chromium at "
            + CHROMIUM
            + " and "
            + CHROMEDRIVER
            + " (Debian: apt-get install chromium chromium-driver; .ci/run installs them)");
    // Named explicitly, so that Selenium Manager never looks for (or downloads) a browser.
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,2400");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
    browser.manage().window().setSize(new Dimension(1400, 2400));
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    if (serve != null && serve.isAlive()) {
      serve.destroyForcibly().waitFor();
    }
  }

  @Test
  void theEndpointsBehindThePageAnswerUnderTheTokenRule() throws Exception {
    HttpResponse<String> page = http.get("/", null);
    assertThat(page.statusCode()).as("the page itself holds no data: no token").isEqualTo(200);
    assertThat(page.body()).contains("status.js").contains("webjars/uplot/");
    assertThat(http.get("/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", null).statusCode())
        .isEqualTo(200);
    for (String path :
        List.of("/api/ui", "/api/pipelines/clicks/commits", "/api/pipelines/clicks/quarantine")) {
      assertThat(http.get(path, null).statusCode()).as(path).isEqualTo(401);
      assertThat(http.get(path, "Bearer wrong").statusCode()).as(path).isEqualTo(401);
    }
    JsonNode ui = JSON.readTree(http.get("/api/ui", AUTH).body());
    assertThat(ui.get("mode").asText()).isEqualTo("serve");
    assertThat(ui.get("actions").toString())
        .isEqualTo("[\"start\",\"stop\",\"backfill\",\"compact\",\"vacuum\"]");

    JsonNode commits = JSON.readTree(http.get("/api/pipelines/clicks/commits?last=3", AUTH).body());
    assertThat(commits).hasSize(3);
    long newest = commits.get(0).get("version").asLong();
    for (int i = 0; i < 3; i++) {
      JsonNode c = commits.get(i);
      assertThat(c.get("version").asLong()).as("newest first").isEqualTo(newest - i);
      assertThat(c.get("operation").asText()).isEqualTo("WRITE");
      assertThat(c.get("batchId").asLong())
          .as("the batch each commit holds")
          .isEqualTo(commits.get(0).get("batchId").asLong() - i);
      assertThat(c.get("rowsAdded").asLong()).isBetween(1L, 100L);
      assertThat(c.get("table").asText()).endsWith("/tables/clicks");
    }

    JsonNode samples =
        JSON.readTree(http.get("/api/pipelines/clicks/quarantine?last=2", AUTH).body());
    assertThat(samples).hasSize(2);
    for (JsonNode q : samples) {
      assertThat(q.get("source").asText()).matches("clicks-.*/\\d@\\d+");
      assertThat(q.get("value").asText()).startsWith("not json ");
      assertThat(q.get("error").asText()).contains("malformed JSON");
    }
    HttpResponse<String> tooMany = http.get("/api/pipelines/clicks/quarantine?last=51", AUTH);
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.body()).contains("between 1 and 50");
  }

  @Test
  void thePageAsksForTheTokenDrawsTheBatchesAndStopsAndStartsThePipeline() throws Exception {
    openBrowser();
    // The API refuses the page's requests without the token, though they come from loopback.
    assertThat(http.get("/api/pipelines", null).statusCode()).isEqualTo(401);
    browser.get(base + "/");
    await().atMost(SLOW).until(() -> displayed("token-panel"));
    assertThat(displayed("overview")).isFalse();

    unlock("wrong-" + TOKEN);
    await()
        .atMost(SLOW)
        .until(
            () ->
                displayed("token-panel")
                    && browser.findElement(By.id("token-why")).getText().contains("refused"));
    assertThat(displayed("overview")).isFalse();

    unlock(TOKEN);
    await().atMost(SLOW).until(() -> displayed("overview") && !displayed("token-panel"));
    assertThat(text("#pipelines tr[data-pipeline='clicks'] .state")).isEqualTo("RUNNING");
    assertThat(text("#verdict")).isEqualTo("Healthy");
    assertThat(browser.getTitle()).isEqualTo("Tributary: healthy");
    assertThat(script("return sessionStorage.getItem('tributary-api-token')")).isEqualTo(TOKEN);

    // Every chart with data is a uPlot instance with points, and its first series is drawn.
    for (String chart : List.of("rates", "phases", "lag", "gap", "quarantine", "expectations")) {
      await()
          .atMost(SLOW)
          .untilAsserted(
              () ->
                  assertThat(
                          (Long)
                              script(
                                  "const u = window.tributaryCharts[arguments[0]];"
                                      + " return u ? u.data[0].length : 0;",
                                  chart))
                      .as(chart + " points")
                      .isGreaterThanOrEqualTo(3));
      assertThat((Long) script(SERIES_PIXELS, chart))
          .as(chart + ": pixels of its first series")
          .isPositive();
    }
    assertThat(text("[data-chart='state']")).contains("Stateless");
    assertThat((Long) script("return window.tributaryCharts.expectations.series.length"))
        .as("x and the one rule")
        .isEqualTo(2L);

    // The tables under the charts: batches, the sink's commits, the quarantined records.
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> {
              assertThat(cells("#batches tbody tr td:first-child")).hasSizeGreaterThanOrEqualTo(3);
              assertThat(cells("#commits tbody tr td:nth-child(3)")).contains("WRITE");
              assertThat(cells("#quarantine tbody tr td:first-child"))
                  .anyMatch(source -> source.matches("clicks-.*/\\d@\\d+"));
            });

    screenshot();

    click("stop");
    await().atMost(SLOW).until(() -> "STOPPED".equals(apiState()));
    await().atMost(SLOW).until(() -> "STOPPED".equals(text("#detail-state")));
    click("start");
    await().atMost(SLOW).until(() -> "RUNNING".equals(apiState()));
    await().atMost(SLOW).until(() -> "RUNNING".equals(text("#detail-state")));

    // The range backfill form posts the range and shows the API's refusal (this pipeline has no
    // event-time column); the jobs table (ServeBackfillIT runs a job through the API) lists none.
    await().atMost(SLOW).until(() -> displayed("backfill-panel"));
    browser.findElement(By.id("backfill-from")).sendKeys("2026-11-01T00:00:00Z");
    browser.findElement(By.id("backfill-to")).sendKeys("2026-11-02T00:00:00Z");
    browser.findElement(By.id("backfill-into")).sendKeys("s3://" + bucket + "/tables/clicks-fixed");
    browser.findElement(By.id("backfill-submit")).click();
    await()
        .atMost(SLOW)
        .until(
            () ->
                String.valueOf(text("#backfill-result"))
                    .startsWith(
                        "Cannot backfill pipeline clicks: it declares no event-time column"));
    assertThat(cells("#backfills tbody tr td:first-child"))
        .containsExactly("No range backfill since the service started.");
  }

  /**
   * How many pixels of the chart's canvas have the color of its first data series (uPlot draws the
   * axes and grid in grays, so these come from the data alone).
   */
  private static final String SERIES_PIXELS =
      """
      const u = window.tributaryCharts[arguments[0]];
      const stroke = u.series[1].stroke;
      const color = typeof stroke === 'function' ? stroke(u, 1) : stroke;
      const rgb = [1, 3, 5].map(i => parseInt(color.substr(i, 2), 16));
      const ctx = u.ctx;
      const img = ctx.getImageData(0, 0, u.ctx.canvas.width, u.ctx.canvas.height).data;
      let n = 0;
      for (let i = 0; i < img.length; i += 4) {
        if (Math.abs(img[i] - rgb[0]) < 8 && Math.abs(img[i + 1] - rgb[1]) < 8
            && Math.abs(img[i + 2] - rgb[2]) < 8 && img[i + 3] > 200) n++;
      }
      return n;
      """;

  private static Object script(String js, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(js, args);
  }

  private static boolean displayed(String id) {
    return browser.findElement(By.id(id)).isDisplayed();
  }

  private static void unlock(String token) {
    WebElement input = browser.findElement(By.id("token-input"));
    input.clear();
    input.sendKeys(token);
    browser.findElement(By.id("token-submit")).click();
  }

  private static void click(String action) {
    await()
        .atMost(SLOW)
        .until(
            () ->
                browser
                    .findElement(By.cssSelector("#actions button[data-action='" + action + "']"))
                    .isEnabled());
    browser.findElement(By.cssSelector("#actions button[data-action='" + action + "']")).click();
  }

  /**
   * The texts of the elements {@code selector} finds, read in one script: the page re-renders its
   * tables at every poll, so an element found in one call may be gone at the next.
   */
  @SuppressWarnings("unchecked")
  private static List<String> cells(String selector) {
    return (List<String>)
        script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent);",
            selector);
  }

  /** The text of the first element {@code selector} finds (null if none), read in one script. */
  private static String text(String selector) {
    return (String)
        script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            selector);
  }

  private static void screenshot() throws Exception {
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Path target = Path.of("target", "status-page.png");
    Files.createDirectories(target.getParent());
    Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
  }

  private static String apiState() throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/clicks?last=1", AUTH);
    return JSON.readTree(response.body()).get("status").get("state").asText();
  }

  private static int progressCount() throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/clicks?last=100", AUTH);
    JsonNode progress = JSON.readTree(response.body()).get("progress");
    return progress == null ? 0 : progress.size();
  }

  /** Valid clicks, and every 25th record not JSON at all (quarantined). */
  private static void produce(KafkaBrokerProcess broker, String topic, int from, int to)
      throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", broker.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
      for (int i = from; i < to; i++) {
        String value =
            i % 25 == 24 ? "not json " + i : "{\"id\":" + i + ",\"page\":\"/p" + (i % 7) + "\"}";
        producer.send(new ProducerRecord<>(topic, Integer.toString(i), value));
      }
      producer.flush();
    }
  }
}
