package io.durableagents.app.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.agent.ContextOptions;
import io.durableagents.agent.DriftPolicy;
import io.durableagents.mcp.McpServerOptions;
import io.durableagents.mcp.McpToolProvider;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class AgentsFileTest {
  private static final ToolCatalog CATALOG = ToolCatalog.demo();

  @TempDir Path dir;

  private static AgentsFile parse(String source, String text) {
    return AgentsFile.parse(source, text, CATALOG);
  }

  /** The problems of {@code text}, one a line, as the CLI prints them. */
  private static List<String> problems(String source, String text) {
    AgentsFileException e = (AgentsFileException) catchThrowable(() -> parse(source, text));
    assertThat(e).as("expected problems in:\n" + text).isNotNull();
    return e.getMessage().lines().toList();
  }

  private static boolean needsApproval(Tool tool) {
    return tool.needsApproval(JsonNodeFactory.instance.objectNode());
  }

  @Test
  void aYamlFile_givesItsAgents_withEveryField() {
    AgentsFile file =
        parse(
            "agents.yaml",
            """
            defaultAgent: weather
            agents:
              - name: concierge
                model: gpt-4o-mini
                instructions: |
                  You book tables.
                  Confirm with the reference.
                tools:
                  - get_weather
                  - name: find_restaurant
                    approval: always
                  - name: book_table
                    approval: never
                maxSteps: 12
                maxTokens: 50000
                toolConcurrency: 2
                modelTimeout: 90s
                modelMaxAttempts: 2
                runTimeout: PT10M
                approvalTimeout: 2d
                idleTimeout: 14d
                onAgentDrift: error
                outputSchema: {type: object, required: [answer]}
              - name: weather
                tools: [get_weather]
            """);

    assertThat(file.source()).isEqualTo("agents.yaml");
    assertThat(file.agentNames()).containsExactly("concierge", "weather");
    assertThat(file.defaultAgent()).isEqualTo("weather");
    Agent concierge = file.agents().get(0);
    assertThat(concierge.model()).isEqualTo("gpt-4o-mini");
    assertThat(concierge.instructions())
        .isEqualTo("You book tables.\nConfirm with the reference.\n");
    assertThat(concierge.tools())
        .extracting(Tool::name)
        .containsExactly("get_weather", "find_restaurant", "book_table");
    // The catalog's own policy, then the file's: book_table requires approval in the catalog.
    assertThat(needsApproval(concierge.tool("get_weather"))).isFalse();
    assertThat(needsApproval(concierge.tool("find_restaurant"))).isTrue();
    assertThat(needsApproval(concierge.tool("book_table"))).isFalse();
    assertThat(concierge.maxSteps()).isEqualTo(12);
    assertThat(concierge.maxTokens()).isEqualTo(50_000);
    assertThat(concierge.toolConcurrency()).isEqualTo(2);
    assertThat(concierge.modelTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(concierge.modelMaxAttempts()).isEqualTo(2);
    assertThat(concierge.runTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(concierge.approvalTimeout()).isEqualTo(Duration.ofDays(2));
    assertThat(concierge.idleTimeout()).isEqualTo(Duration.ofDays(14));
    assertThat(concierge.onAgentDrift()).isEqualTo(DriftPolicy.ERROR);
    assertThat(concierge.outputSchema().path("required").get(0).asText()).isEqualTo("answer");
  }

  @Test
  void fieldsLeftOut_takeTheAgentDefaults_andTheFirstAgentIsTheDefault() {
    AgentsFile file = parse("agents.yaml", "agents:\n  - name: minimal\n");
    Agent defaults = Agent.newBuilder("defaults").build();

    Agent minimal = file.agents().get(0);
    assertThat(file.defaultAgent()).isEqualTo("minimal");
    assertThat(minimal.model()).isEqualTo(defaults.model());
    assertThat(minimal.instructions()).isEqualTo(defaults.instructions());
    assertThat(minimal.tools()).isEmpty();
    assertThat(minimal.maxSteps()).isEqualTo(defaults.maxSteps());
    assertThat(minimal.maxTokens()).isEqualTo(defaults.maxTokens());
    assertThat(minimal.runTimeout()).isNull();
    assertThat(minimal.approvalTimeout()).isEqualTo(defaults.approvalTimeout());
    assertThat(minimal.onAgentDrift()).isEqualTo(DriftPolicy.WARN);
    assertThat(minimal.outputSchema()).isNull();
    assertThat(minimal.contextOptions()).isEqualTo(ContextOptions.getDefaultInstance());
  }

  @Test
  void contextSettings_areRead_andBadOnesNameTheFieldAndLine() {
    AgentsFile file =
        parse(
            "agents.yaml",
            """
            agents:
              - name: long
                model: gpt-4o
                context:
                  contextWindow: 32000
                  maxOutputTokens: 2000
                  compaction: [clear-tool-results, window]
                  threshold: 0.75
                  maxResultChars: 8000
            """);
    assertThat(file.agents().get(0).contextOptions())
        .isEqualTo(
            ContextOptions.newBuilder()
                .setContextWindow(32_000)
                .setMaxOutputTokens(2_000)
                .setCompaction(CompactionPolicy.CLEAR_TOOL_RESULTS, CompactionPolicy.WINDOW)
                .setThreshold(0.75)
                .setMaxResultChars(8_000)
                .build());

    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: a
                    context:
                      contextWindow: 0
                      compaction: [summarise]
                      threshold: 1.5
                  - name: b
                    context: {contextWindow: 1000, maxOutputTokens: 1000}
                  - name: c
                    instructions: "%s"
                    context: {contextWindow: 2000}
                """
                    .formatted("x".repeat(8_000))))
        .containsExactly(
            "agents.yaml:4: agents[0].context.contextWindow: must be between 1 and 2147483647,"
                + " got 0",
            "agents.yaml:5: agents[0].context.compaction[0]: unknown compaction policy"
                + " 'summarise': use clear-tool-results or window",
            "agents.yaml:6: agents[0].context.threshold: expected a number above 0 and at most 1,"
                + " got a number (1.5)",
            "agents.yaml:8: agents[1].context: maxOutputTokens (1000) must be less than"
                + " contextWindow (1000)",
            "agents.yaml:9: agents[2]: Agent 'c': its instructions and tool definitions take about"
                + " 2004 tokens, which leaves no room for a conversation in contextWindow 2000 less"
                + " maxOutputTokens 500 (at least twice that is needed). Set a larger contextWindow"
                + " in its ContextOptions, or shorten the instructions.");
  }

  @Test
  void aJsonFile_givesTheSameAgents() throws IOException {
    Path json =
        Files.writeString(
            dir.resolve("agents.json"),
            """
            {"agents": [
              {"name": "concierge", "model": "demo", "instructions": "You book tables.",
               "tools": [{"name": "get_weather"}, {"name": "book_table", "approval": "never"}],
               "maxSteps": 5, "maxTokens": 1000, "runTimeout": "30s", "approvalTimeout": "P1D",
               "onAgentDrift": "ignore"}]}
            """);

    AgentsFile file = AgentsFile.load(json, CATALOG);

    Agent concierge = file.agents().get(0);
    assertThat(file.source()).isEqualTo(json.toString());
    assertThat(file.defaultAgent()).isEqualTo("concierge");
    assertThat(concierge.model()).isEqualTo("demo");
    assertThat(concierge.instructions()).isEqualTo("You book tables.");
    assertThat(concierge.tools())
        .extracting(Tool::name)
        .containsExactly("get_weather", "book_table");
    assertThat(needsApproval(concierge.tool("book_table"))).isFalse();
    assertThat(concierge.maxSteps()).isEqualTo(5);
    assertThat(concierge.maxTokens()).isEqualTo(1000);
    assertThat(concierge.runTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(concierge.approvalTimeout()).isEqualTo(Duration.ofDays(1));
    assertThat(concierge.onAgentDrift()).isEqualTo(DriftPolicy.IGNORE);
  }

  @Test
  void aToolWithAnotherPolicy_keepsTheCatalogToolsOtherSettings() {
    Tool original = CATALOG.find("book_table").orElseThrow();

    Tool copy = ToolCatalog.withApproval(original, ApprovalPolicy.NEVER);

    assertThat(needsApproval(original)).isTrue();
    assertThat(needsApproval(copy)).isFalse();
    assertThat(copy.description()).isEqualTo(original.description());
    assertThat(copy.inputSchema()).isEqualTo(original.inputSchema());
    assertThat(copy.handler()).isSameAs(original.handler());
    assertThat(copy.timeout()).isEqualTo(original.timeout());
    assertThat(copy.maxAttempts()).isEqualTo(original.maxAttempts());
    assertThat(copy.execution()).isEqualTo(original.execution());
  }

  @Test
  void theShippedExample_loadsWithTheDemoTools() {
    AgentsFile example = AgentsFile.load(Path.of("../docs/examples/agents.yaml"), CATALOG);

    assertThat(example.agentNames()).containsExactly("concierge", "weather");
    assertThat(example.defaultAgent()).isEqualTo("concierge");
    assertThat(example.agents().get(0).subAgents())
        .extracting(sub -> sub.agent().name())
        .containsExactly("weather");
    assertThat(needsApproval(example.agents().get(0).tool("book_table"))).isTrue();
  }

  @Test
  void anUnknownTool_namesTheFieldAndLine_andTheKnownTools() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    tools:
                      - get_weather
                      - name: get_wether
                      - name: search_flights
                """))
        .containsExactly(
            "agents.yaml:5: agents[0].tools[1].name: no tool named 'get_wether' in this worker's"
                + " catalog; did you mean 'get_weather'?",
            "agents.yaml:6: agents[0].tools[2].name: no tool named 'search_flights' in this"
                + " worker's catalog; known: get_weather, find_restaurant, book_table");
  }

  @Test
  void aBadApprovalPolicy_isAProblemAtItsLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    tools:
                      - name: book_table
                        approval: sometimes
                      - name: get_weather
                        approval: true
                """))
        .containsExactly(
            "agents.yaml:5: agents[0].tools[0].approval: unknown approval 'sometimes'; expected"
                + " always or never",
            "agents.yaml:7: agents[0].tools[1].approval: expected a string, got a boolean (true)");
  }

  @Test
  void mcpServers_areNamedOnce_andEachAgentTakesItsChoiceOfTheirTools() {
    AgentsFile file =
        parse(
            "agents.yaml",
            """
            mcpServers:
              weather:
                command: weather-server
                args: [--units, metric]
                env: {REGION: eu}
                toolTimeout: 30s
              notes:
                url: http://localhost:3001/mcp
                headers: {Authorization: Bearer abc}
                optional: true
            agents:
              - name: concierge
                mcpServers:
                  - notes
                  - server: weather
                    approval: always
                    tools:
                      - forecast
                      - name: umbrella
                        approval: never
            """);

    assertThat(file.mcpServers())
        .extracting(server -> server.options().name())
        .containsExactly("weather", "notes");
    McpServerOptions weather = file.mcpServers().get(0).options();
    assertThat(weather.command()).isEqualTo("weather-server");
    assertThat(weather.args()).containsExactly("--units", "metric");
    assertThat(weather.env()).containsEntry("REGION", "eu");
    assertThat(weather.toolTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
    McpServerOptions notes = file.mcpServers().get(1).options();
    assertThat(notes.url()).hasToString("http://localhost:3001/mcp");
    assertThat(notes.headers()).containsEntry("Authorization", "Bearer abc");
    assertThat(notes.isOptional()).isTrue();

    List<ToolProvider> providers = file.agents().get(0).toolProviders();
    assertThat(providers).hasSize(2);
    McpServerOptions chosen = ((McpToolProvider) providers.get(1)).options();
    assertThat(chosen.tools()).containsExactly("forecast", "umbrella");
    JsonNode none = new ObjectMapper().createObjectNode();
    assertThat(chosen.approvalPolicy("forecast").needsApproval(none)).isTrue();
    assertThat(chosen.approvalPolicy("umbrella").needsApproval(none)).isFalse();
    assertThat(((McpToolProvider) providers.get(0)).options().tools()).isNull();
  }

  @Test
  void subAgents_nameOtherAgentsOfTheFile_whichAreBuiltFirst() {
    AgentsFile file =
        parse(
            "agents.yaml",
            """
            agents:
              - name: concierge
                subAgents:
                  - agent: weather
                    description: Answers weather questions.
              - name: weather
                tools: [get_weather]
            """);

    Agent concierge = file.agents().get(0);
    assertThat(concierge.subAgents())
        .singleElement()
        .satisfies(
            sub -> {
              assertThat(sub.agent()).isSameAs(file.agents().get(1));
              assertThat(sub.description()).isEqualTo("Answers weather questions.");
            });
  }

  @Test
  void subAgents_problems_unknownNamesCyclesAndMissingDescriptions() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: a
                    subAgents:
                      - agent: b
                        description: B.
                      - agent: wether
                        description: W.
                  - name: b
                    subAgents:
                      - agent: a
                        description: A.
                      - agent: c
                  - name: c
                """))
        .containsExactly(
            "agents.yaml:6: agents[0].subAgents[1].agent: no agent named 'wether' in this file;"
                + " agents: a, b, c",
            "agents.yaml:10: agents[1].subAgents[0].agent: sub-agent cycle: a -> b -> a; an agent"
                + " cannot hand a task to itself or to an agent above it",
            "agents.yaml:12: agents[1].subAgents[1]: missing required field 'description' (the"
                + " model chooses sub-agents by it)");
  }

  @Test
  void mcpServers_problems_nameTheLineAndTheField() {
    assertThat(
            problems(
                "agents.yaml",
                """
                mcpServers:
                  both:
                    command: x
                    url: http://localhost/mcp
                  odd:
                    command: y
                    colour: red
                agents:
                  - name: a
                    mcpServers:
                      - wether
                      - server: odd
                        tools: forecast
                """))
        .containsExactly(
            "agents.yaml:2: mcpServers.both: a server needs either 'command' (stdio) or 'url' (HTTP),"
                + " not both",
            "agents.yaml:7: mcpServers.odd.colour: unknown field; known fields: command, args, env,"
                + " url, headers, optional, toolTimeout, connectTimeout, maxAttempts",
            "agents.yaml:11: agents[0].mcpServers[0]: no MCP server named 'wether' in this file's"
                + " mcpServers; known: odd",
            "agents.yaml:13: agents[0].mcpServers[1].tools: expected a list of tool names, got a"
                + " string (\"forecast\")");
  }

  @Test
  void mcpServers_thatCanNeverWork_areRefusedAtLoad_namingTheField() {
    assertThat(
            problems(
                "agents.yaml",
                """
                mcpServers:
                  empty:
                    command: ''
                  stdio-headers:
                    command: python3
                    headers: {Authorization: "Bearer abc"}
                  crlf:
                    url: http://localhost/mcp
                    headers: {Authorization: "Bearer abc\\r\\nX-Admin: yes"}
                  spaced:
                    url: http://localhost/mcp
                    headers: {"X Token": abc}
                  forever:
                    url: http://localhost/mcp
                    toolTimeout: 1000000d
                  huge:
                    url: http://localhost/mcp
                    connectTimeout: 99999999999999999999s
                agents:
                  - name: a
                """))
        .containsExactly(
            "agents.yaml:2: mcpServers.empty: command is empty: it names the program the worker"
                + " starts, e.g. python3.",
            "agents.yaml:4: mcpServers.stdio-headers: headers are sent to an HTTP server (url); a"
                + " stdio server (command) takes none (give it env instead).",
            "agents.yaml:7: mcpServers.crlf: headers.Authorization: the value holds a line break"
                + " (CR or LF).",
            "agents.yaml:10: mcpServers.spaced: headers: 'X Token' is not a header name (letters,"
                + " digits and !#$%&'*+-.^_`|~ only, no spaces or colons).",
            "agents.yaml:13: mcpServers.forever: toolTimeout must be positive and at most 106751"
                + " days (the longest the MCP client can wait), got PT24000000H.",
            "agents.yaml:18: mcpServers.huge.connectTimeout: expected a positive duration such as"
                + " PT10M, 10m, 30s or P7D, got a string (\"99999999999999999999s\")");
  }

  @Test
  void unknownFields_areProblems_withASuggestionForNearMisses() {
    assertThat(
            problems(
                "agents.yaml",
                """
                defaultAgnet: concierge
                agents:
                  - name: concierge
                    maxStep: 3
                    color: blue
                    tools:
                      - name: get_weather
                        aproval: never
                """))
        .containsExactly(
            "agents.yaml:1: defaultAgnet: unknown field; did you mean 'defaultAgent'?",
            "agents.yaml:4: agents[0].maxStep: unknown field; did you mean 'maxSteps'?",
            "agents.yaml:5: agents[0].color: unknown field; known fields: name, model,"
                + " instructions, tools, mcpServers, subAgents, maxSteps, maxTokens, toolConcurrency,"
                + " modelTimeout, modelMaxAttempts, runTimeout, approvalTimeout, idleTimeout,"
                + " onAgentDrift, outputSchema, context",
            "agents.yaml:8: agents[0].tools[0].aproval: unknown field; did you mean 'approval'?");
  }

  @Test
  void wrongTypesAndValues_nameTheFieldAndLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    model: 4
                    instructions: [be nice]
                    tools: get_weather
                    maxSteps: "many"
                    maxTokens: -1
                    toolConcurrency: 1.5
                    runTimeout: soon
                    approvalTimeout: 0s
                """))
        .containsExactly(
            "agents.yaml:3: agents[0].model: expected a string, got a number (4)",
            "agents.yaml:4: agents[0].instructions: expected a string, got a list",
            "agents.yaml:5: agents[0].tools: expected a list of tools, got a string"
                + " (\"get_weather\")",
            "agents.yaml:6: agents[0].maxSteps: expected a whole number, got a string (\"many\")",
            "agents.yaml:7: agents[0].maxTokens: must be at least 0, got -1",
            "agents.yaml:8: agents[0].toolConcurrency: expected a whole number, got a number"
                + " (1.5)",
            "agents.yaml:9: agents[0].runTimeout: expected a positive duration such as PT10M,"
                + " 10m, 30s or P7D, got a string (\"soon\")",
            "agents.yaml:10: agents[0].approvalTimeout: expected a positive duration such as"
                + " PT10M, 10m, 30s or P7D, got a string (\"0s\")");
  }

  @Test
  void aMissingName_isAProblemAtTheAgentsLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                  - model: demo
                    instructions: Hi.
                  - tools:
                      - name: get_weather
                        approval: always
                      - {}
                """))
        .containsExactly(
            "agents.yaml:3: agents[1]: missing required field 'name'",
            "agents.yaml:5: agents[2]: missing required field 'name'",
            "agents.yaml:8: agents[2].tools[1]: missing required field 'name'");
  }

  @Test
  void anUnknownOnAgentDrift_isAProblemListingTheValues() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    onAgentDrift: loud
                """))
        .containsExactly(
            "agents.yaml:3: agents[0].onAgentDrift: unknown value 'loud'; expected one of: warn,"
                + " error, ignore");
  }

  @Test
  void duplicateNames_andAnUnknownDefaultAgent_areProblems() {
    assertThat(
            problems(
                "agents.yaml",
                """
                defaultAgent: butler
                agents:
                  - name: concierge
                    tools: [get_weather, get_weather]
                  - name: concierge
                  - name: bad name!
                """))
        .containsExactly(
            "agents.yaml:1: defaultAgent: no agent named 'butler' in this file; agents: concierge",
            "agents.yaml:4: agents[0].tools[1]: tool 'get_weather' is listed twice (first at line"
                + " 4)",
            "agents.yaml:5: agents[1].name: a second agent named 'concierge' (the first is at"
                + " line 3)",
            "agents.yaml:6: agents[2].name: 'bad name!' is not an agent name: 1-64 letters,"
                + " digits, '_', '.' or '-'");
  }

  @Test
  void aKeyTwice_isAProblemAtItsSecondLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    maxSteps: 3
                    maxSteps: 4
                """))
        .containsExactly("agents.yaml:4: agents[0].maxSteps: appears twice (first at line 3)");
  }

  @Test
  void everyKeyGivenTwice_isAProblem_withTheFilesOtherProblems() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    maxSteps: 3
                    maxSteps: 4
                    model: a
                    model: b
                    maxSteps: 5
                  - name: weather
                    modell: b
                    tools: [get_weather]
                    tools: [book_table]
                """))
        .containsExactly(
            "agents.yaml:4: agents[0].maxSteps: appears twice (first at line 3)",
            "agents.yaml:6: agents[0].model: appears twice (first at line 5)",
            "agents.yaml:7: agents[0].maxSteps: appears twice (first at line 3)",
            "agents.yaml:9: agents[1].modell: unknown field; did you mean 'model'?",
            "agents.yaml:11: agents[1].tools: appears twice (first at line 10)");
  }

  @Test
  void anOutputSchemaThatIsNoJsonSchema_isAProblemAtItsLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                    outputSchema:
                      type: 42
                  - name: weather
                    outputSchema:
                      type: object
                      required: [answer, 7]
                      properties:
                        answer: {type: strng}
                """))
        .containsExactly(
            "agents.yaml:4: agents[0].outputSchema.type: not a valid JSON schema: does not have a"
                + " value in the enumeration [\"array\", \"boolean\", \"integer\", \"null\","
                + " \"number\", \"object\", \"string\"]; integer found, array expected",
            "agents.yaml:8: agents[1].outputSchema.required[1]: not a valid JSON schema: integer"
                + " found, string expected",
            "agents.yaml:10: agents[1].outputSchema.properties.answer.type: not a valid JSON"
                + " schema: does not have a value in the enumeration [\"array\", \"boolean\","
                + " \"integer\", \"null\", \"number\", \"object\", \"string\"]; string found,"
                + " array expected");
  }

  @Test
  void anOutputSchemaWithAKeywordOfItsOwn_isValid_andLogsNoWarning() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    List<String> problems;
    // slf4j-simple writes to the System.err of the moment (logFile=System.err).
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      problems =
          problems(
              "agents.yaml",
              """
              agents:
                - name: concierge
                  outputSchema: {type: object, x-ui-order: [answer]}
                - name: weather
                  maxSteps: many
              """);
    } finally {
      System.setErr(stderr);
    }

    assertThat(problems)
        .containsExactly(
            "agents.yaml:5: agents[1].maxSteps: expected a whole number, got a string (\"many\")");
    assertThat(logged.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void aFileOverTheLimit_isRefusedByItsSize_beforeItIsParsed() throws IOException {
    Path large = dir.resolve("large.yaml");
    // 10 MB of a valid-looking YAML list: parsing it would take the YAML parser many seconds.
    String agent = "  - name: a\n    instructions: " + "x".repeat(100) + "\n";
    Files.writeString(large, "agents:\n" + agent.repeat(10_000_000 / agent.length()));
    assertThat(Files.size(large)).isGreaterThan(AgentsFile.MAX_FILE_BYTES);
    long started = System.nanoTime();

    assertThatThrownBy(() -> AgentsFile.load(large, CATALOG))
        .isInstanceOf(AgentsFileException.class)
        .hasMessage(large + ": larger than 1 MiB, the limit of an agents file; not read");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void anEndlessFile_isReadOnlyUpToTheLimit() {
    assertThatThrownBy(() -> AgentsFile.load(Path.of("/dev/zero"), CATALOG))
        .isInstanceOf(AgentsFileException.class)
        .hasMessage("/dev/zero: larger than 1 MiB, the limit of an agents file; not read");
  }

  @Test
  void aFileThatIsNotUtf8_isAProblemNamingIt() throws IOException {
    Path latin1 = Files.write(dir.resolve("latin1.yaml"), new byte[] {'a', ':', ' ', (byte) 0xe9});

    assertThatThrownBy(() -> AgentsFile.load(latin1, CATALOG))
        .isInstanceOf(AgentsFileException.class)
        .hasMessage(latin1 + ": not UTF-8 text");
  }

  @Test
  void aDocumentWithoutAgents_isAProblem() {
    assertThat(problems("agents.yaml", ""))
        .containsExactly("agents.yaml:1: the file is empty; expected an object with 'agents'");
    assertThat(problems("agents.yaml", "- name: concierge\n"))
        .containsExactly("agents.yaml:1: expected an object with 'agents', got a list");
    assertThat(problems("agents.yaml", "defaultAgent: concierge\n"))
        .containsExactly("agents.yaml:1: missing required field 'agents'");
    assertThat(problems("agents.yaml", "agents: []\n"))
        .containsExactly("agents.yaml:1: agents: the list is empty; define at least one agent");
  }

  @Test
  void malformedYamlAndJson_areOneProblemAtTheirLine() {
    assertThat(
            problems(
                "agents.yaml",
                """
                agents:
                  - name: concierge
                   tools: [get_weather
                """))
        .containsExactly(
            "agents.yaml:3: not valid YAML: expected <block end>, but found '<block mapping"
                + " start>' (while parsing a block collection that starts at line 2)");
    assertThat(problems("agents.yaml", "agents:\n  - name: a\n\ttools: []\n"))
        .singleElement()
        .asString()
        .startsWith("agents.yaml:3: not valid YAML: found character '\\t(TAB)'");
    assertThat(problems("agents.json", "{\"agents\": [\n  {\"name\": \"a\",}\n]}"))
        .singleElement()
        .asString()
        .startsWith("agents.json:2: not valid JSON: Unexpected character ('}'");
  }

  @Test
  void aMissingFile_isAProblemNamingIt() {
    Path missing = dir.resolve("nope.yaml");

    assertThatThrownBy(() -> AgentsFile.load(missing, CATALOG))
        .isInstanceOf(AgentsFileException.class)
        .hasMessage(missing + ": no such agents file");
  }
}
