package io.durableagents.app.browser;

import io.durableagents.app.InstallScript;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.ElementClickInterceptedException;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The system's Chromium, headless, driven through the system's chromedriver: the binaries are given
 * explicitly, so Selenium Manager never runs and no test framework downloads a browser. {@code
 * CHROMIUM} and {@code CHROMEDRIVER} override the Debian paths; when those are missing, the first
 * browser test installs Debian's packages with {@code scripts/install-chromium}. Binaries that
 * cannot be installed fail the test (never skip it): a browser test that silently does not run
 * proves nothing.
 */
public final class HeadlessChromium implements AutoCloseable {
  /** The window of the screenshots in docs/. */
  public static final Dimension DESKTOP = new Dimension(1280, 900);

  /** A phone-sized window, for the pages' narrow layout. */
  public static final Dimension NARROW = new Dimension(390, 844);

  /** How often waits look: streamed text can be on a page for a fraction of a second. */
  private static final Duration POLL = Duration.ofMillis(100);

  static final String DEFAULT_CHROMIUM = "/usr/bin/chromium";
  static final String DEFAULT_CHROMEDRIVER = "/usr/bin/chromedriver";

  /** Where {@code scripts/install-chromium} writes its output (the module's build directory). */
  static final Path INSTALL_LOG = Path.of("target", "install-chromium.log");

  /** Whether this JVM ran {@code scripts/install-chromium} successfully. */
  private static boolean installed;

  private static final String RECORD_EVENT_SOURCES =
      """
      (() => {
        const Native = window.EventSource;
        const opened = [];
        window.__eventSources = opened;
        window.EventSource = class extends Native {
          constructor(...args) {
            super(...args);
            opened.push(this);
          }
        };
      })();
      """;

  private final ChromeDriverService service;
  private final ChromeDriver driver;

  private HeadlessChromium(ChromeDriverService service, ChromeDriver driver) {
    this.service = service;
    this.driver = driver;
  }

  /** A browser with a {@link #DESKTOP} window. */
  public static HeadlessChromium start() {
    return start(DESKTOP);
  }

  /** A browser whose pages see a viewport of {@code window} (e.g. {@link #NARROW}). */
  public static HeadlessChromium start(Dimension window) {
    String chromium =
        binary(System.getenv(), "CHROMIUM", DEFAULT_CHROMIUM, HeadlessChromium::installOnce);
    String chromedriver =
        binary(
            System.getenv(), "CHROMEDRIVER", DEFAULT_CHROMEDRIVER, HeadlessChromium::installOnce);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(chromedriver))
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=" + window.getWidth() + "," + window.getHeight());
    // The page's console, read by consoleLog() to explain a failure (a CSP report, a script error).
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    // An alert stays open for the test to see (the default dismisses it and fails some other call).
    options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
    ChromeDriver driver;
    try {
      driver = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      service.stop();
      throw new IllegalStateException(
          "Cannot start " + chromium + " through " + chromedriver + ": " + e.getMessage(), e);
    }
    HeadlessChromium browser = new HeadlessChromium(service, driver);
    try {
      browser.resizeViewport(window);
    } catch (RuntimeException e) {
      browser.close();
      throw e;
    }
    return browser;
  }

  /**
   * The path of a binary from {@code variable} of {@code env}, which must be there; else {@code
   * fallback}, running {@code install} first when it is not there. Fails saying how to install it.
   */
  static String binary(
      Map<String, String> env, String variable, String fallback, Runnable install) {
    String configured = env.get(variable);
    if (configured != null && !configured.isBlank()) {
      String path = configured.strip();
      if (!Files.isExecutable(Path.of(path))) {
        throw new IllegalStateException(
            "The browser tests need Chromium and its chromedriver, but "
                + path
                + " is not an executable file (set "
                + variable
                + " to another path, or unset it for scripts/install-chromium to install "
                + fallback
                + " with `apt-get install chromium chromium-driver`).");
      }
      return path;
    }
    if (!Files.isExecutable(Path.of(fallback))) {
      try {
        install.run();
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "The browser tests need Chromium and its chromedriver, but "
                + fallback
                + " is missing and scripts/install-chromium could not install it: "
                + e.getMessage(),
            e);
      }
      if (!Files.isExecutable(Path.of(fallback))) {
        throw new IllegalStateException(
            "scripts/install-chromium ran, but "
                + fallback
                + " is still not an executable file (set "
                + variable
                + " to its path).");
      }
    }
    return fallback;
  }

  /** Runs {@code scripts/install-chromium}, once per JVM when it succeeds. */
  private static synchronized void installOnce() {
    if (!installed) {
      try {
        Files.createDirectories(INSTALL_LOG.toAbsolutePath().getParent());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      InstallScript.named("install-chromium").run(INSTALL_LOG.toAbsolutePath());
      installed = true;
    }
  }

  /**
   * Sizes the window so the viewport, not the window, is {@code viewport}: {@code --window-size}
   * sizes the window, whose frame may take some of it.
   */
  public void resizeViewport(Dimension viewport) {
    driver.manage().window().setSize(viewport);
    @SuppressWarnings("unchecked")
    Map<String, Long> inner =
        (Map<String, Long>)
            script("return {width: window.innerWidth, height: window.innerHeight};");
    int width = viewport.getWidth() + (viewport.getWidth() - inner.get("width").intValue());
    int height = viewport.getHeight() + (viewport.getHeight() - inner.get("height").intValue());
    if (width != viewport.getWidth() || height != viewport.getHeight()) {
      driver.manage().window().setSize(new Dimension(width, height));
    }
  }

  public WebDriver driver() {
    return driver;
  }

  /** Loads {@code url} and waits for the document to be parsed and its scripts run. */
  public HeadlessChromium open(URI url) {
    driver.get(url.toString());
    return this;
  }

  /**
   * From now on every page keeps the {@code EventSource}s it opens in {@code window.__eventSources}
   * (a script run before the page's own), so a test can wait until the page listens before it makes
   * events that are never replayed, such as deltas.
   */
  public void recordEventSources() {
    driver.executeCdpCommand(
        "Page.addScriptToEvaluateOnNewDocument", Map.of("source", RECORD_EVENT_SOURCES));
  }

  /** How many of the page's {@code EventSource}s are open (see {@link #recordEventSources}). */
  public long openEventSources() {
    Object open =
        script(
            "return (window.__eventSources || [])"
                + ".filter(s => s.readyState === EventSource.OPEN).length;");
    return open instanceof Number number ? number.longValue() : 0;
  }

  /** The first element matching {@code css}, once there is one. */
  public WebElement waitFor(String css, Duration timeout) {
    return new WebDriverWait(driver, timeout, POLL)
        .withMessage(() -> "no element " + css + " on " + driver.getCurrentUrl() + consoleLog())
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(css)));
  }

  /**
   * Clicks the first element matching {@code css} once one is shown and enabled. The pages rebuild
   * parts of themselves whenever they refresh, so an element found a moment ago can be gone by the
   * click: each try finds the element again, and a click that met a replaced (stale) or covered
   * element is tried again. Such a click never reached the page, so none is doubled.
   */
  public void click(String css, Duration timeout) {
    new WebDriverWait(driver, timeout, POLL)
        .ignoring(StaleElementReferenceException.class)
        .ignoring(ElementClickInterceptedException.class)
        .withMessage(
            () -> "no clickable element " + css + " on " + driver.getCurrentUrl() + consoleLog())
        .until(
            page -> {
              WebElement element = page.findElement(By.cssSelector(css));
              if (!element.isDisplayed() || !element.isEnabled()) {
                return false;
              }
              element.click();
              return true;
            });
  }

  /** Waits until {@code condition} returns neither null nor false, and returns its value. */
  public <T> T waitUntil(Duration timeout, String what, Function<WebDriver, T> condition) {
    return waitUntil(timeout, () -> what, condition);
  }

  /** {@link #waitUntil(Duration, String, Function)}, describing the failure when it happens. */
  public <T> T waitUntil(
      Duration timeout, Supplier<String> what, Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, timeout, POLL)
        .withMessage(() -> what.get() + " on " + driver.getCurrentUrl() + consoleLog())
        .until(condition);
  }

  /** The elements matching {@code css} now (none: an empty list). */
  public List<WebElement> findAll(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  /** Runs {@code javascript} in the page and returns what it returns. */
  public Object script(String javascript, Object... arguments) {
    return ((JavascriptExecutor) driver).executeScript(javascript, arguments);
  }

  /** Saves a PNG of the viewport to {@code file}, creating its directory. */
  public Path screenshot(Path file) {
    byte[] png = driver.getScreenshotAs(OutputType.BYTES);
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      return Files.write(file, png);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write screenshot " + file, e);
    }
  }

  /** What the page logged to its console since the last call, for failure messages. */
  public String consoleLog() {
    try {
      List<LogEntry> entries = driver.manage().logs().get(LogType.BROWSER).getAll();
      return entries.isEmpty()
          ? ""
          : entries.stream()
              .map(entry -> entry.getLevel() + " " + entry.getMessage())
              .collect(Collectors.joining("\n  ", "; browser console:\n  ", ""));
    } catch (RuntimeException e) {
      return "; browser console unavailable: " + e.getMessage();
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
    }
  }
}
