package io.durableagents.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo agent {@code concierge}: weather, restaurant search and table booking over deterministic
 * fake data. {@code book_table} waits for a human approval and is idempotent on the call's {@link
 * ToolContext#idempotencyKey()}, as every tool with side effects should be.
 *
 * <p>It is what {@code agents demo} runs, and an agent to try a model provider or a store with: its
 * conversation needs a tool call, an approval and a final answer.
 */
public final class ConciergeAgent {
  /** The agent's name, as sessions name it ({@code agents send --agent concierge}). */
  public static final String NAME = "concierge";

  private static final String SCRIPT = "concierge-script.json";

  /**
   * The restaurant's bookings by idempotency key: a retried call finds its booking instead of
   * making another, and the calls of two sessions (whose scripted call ids are the same) are two
   * bookings.
   */
  private static final Map<String, Map<String, Object>> BOOKINGS = new ConcurrentHashMap<>();

  private static final ObjectMapper STATE_JSON = new ObjectMapper();

  record WeatherInput(String city) {}

  record FindRestaurantInput(String city, int people, String time) {}

  record BookTableInput(String restaurant, int people, String time) {}

  private ConciergeAgent() {}

  /** The demo agent: its {@link #tools()}, at most 10 steps, for the scripted model. */
  public static Agent create() {
    return Agent.newBuilder(NAME)
        .setModel("scripted")
        .setInstructions(
            "You are a concierge. Check the weather, find a restaurant and book a table. "
                + "Confirm bookings with their reference.")
        .setTools(tools())
        .setMaxSteps(10)
        .build();
  }

  /**
   * The demo's tools, {@code get_weather}, {@code find_restaurant} and {@code book_table} (which
   * requires approval): what the worker's tool catalog offers agents files.
   */
  public static List<Tool> tools() {
    return List.of(getWeather(), findRestaurant(), bookTable());
  }

  /** The scripted conversation the demo plays (a scripted model file, shipped as a resource). */
  public static ScriptedModelProvider defaultScript() {
    return ScriptedModelProvider.fromJson(defaultScriptJson());
  }

  /** The JSON of {@link #defaultScript()}, read from the shipped resource. */
  public static String defaultScriptJson() {
    try (InputStream in = ConciergeAgent.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + SCRIPT);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Tool getWeather() {
    return Tool.newBuilder("get_weather")
        .setDescription("Current weather for a city.")
        .setHandler(WeatherInput.class, (in, ctx) -> weather(in.city()))
        .build();
  }

  static Tool findRestaurant() {
    return Tool.newBuilder("find_restaurant")
        .setDescription(
            "Find a restaurant with a free table for the party at the given time (HH:MM).")
        .setInputSchema(
            """
            {"type": "object",
             "properties": {
               "city": {"type": "string", "minLength": 1},
               "people": {"type": "integer", "minimum": 1, "maximum": 20},
               "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"}},
             "required": ["city", "people", "time"],
             "additionalProperties": false}
            """)
        .setHandler(FindRestaurantInput.class, (in, ctx) -> restaurant(in))
        .build();
  }

  static Tool bookTable() {
    return Tool.newBuilder("book_table")
        .setDescription("Book a table. Has a side effect: the restaurant holds the table.")
        .setApprovalPolicy(ApprovalPolicy.ALWAYS)
        .setInputSchema(
            """
            {"type": "object",
             "properties": {
               "restaurant": {"type": "string", "minLength": 1},
               "people": {"type": "integer", "minimum": 1, "maximum": 20},
               "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"}},
             "required": ["restaurant", "people", "time"],
             "additionalProperties": false}
            """)
        .setHandler(BookTableInput.class, ConciergeAgent::book)
        .build();
  }

  /** Fake weather: fixed for the cities of the demo script, derived from the name otherwise. */
  private static Map<String, Object> weather(String city) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("city", city);
    if (city.equalsIgnoreCase("Paris")) {
      out.put("sky", "sunny");
      out.put("temperatureC", 21);
      return out;
    }
    int seed = city.toLowerCase(Locale.ROOT).hashCode();
    List<String> skies = List.of("sunny", "cloudy", "light rain", "clear");
    out.put("sky", skies.get(Math.abs(seed % skies.size())));
    out.put("temperatureC", 12 + Math.abs(seed % 15));
    return out;
  }

  private static Map<String, Object> restaurant(FindRestaurantInput in) {
    List<String> names = List.of("Le Petit Zinc", "Chez Marcel", "La Table d'Anna");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(
        "restaurant",
        in.city().equalsIgnoreCase("Paris")
            ? names.get(0)
            : names.get(Math.abs(in.city().hashCode() % names.size())));
    out.put("city", in.city());
    out.put("people", in.people());
    out.put("time", in.time());
    out.put("available", true);
    return out;
  }

  /** How many bookings the fake restaurant holds (in this process). */
  public static int bookingCount() {
    return BOOKINGS.size();
  }

  /**
   * Books once per idempotency key, and notes the booking in the session's business state, where
   * later tools (and a fork's patch) can see it: {@code {"bookings": {"BK-...": {...}}}}.
   */
  private static Map<String, Object> book(BookTableInput in, ToolContext ctx) {
    Map<String, Object> booking = bookOnce(in, ctx);
    Map<String, Object> details = new LinkedHashMap<>(booking);
    Object confirmation = details.remove("confirmation");
    ctx.businessState()
        .update(
            STATE_JSON.valueToTree(
                Map.of("bookings", Map.of(String.valueOf(confirmation), details))));
    return booking;
  }

  private static Map<String, Object> bookOnce(BookTableInput in, ToolContext ctx) {
    return BOOKINGS.computeIfAbsent(
        ctx.idempotencyKey(),
        key -> {
          Map<String, Object> booking = new LinkedHashMap<>();
          // The key is a UUID: its first twelve hex digits make a reference as unique as a demo
          // needs.
          booking.put(
              "confirmation",
              "BK-" + key.replace("-", "").substring(0, 12).toUpperCase(Locale.ROOT));
          booking.put("restaurant", in.restaurant());
          booking.put("people", in.people());
          booking.put("time", in.time());
          return booking;
        });
  }
}
