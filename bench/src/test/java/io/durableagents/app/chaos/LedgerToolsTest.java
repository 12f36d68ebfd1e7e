package io.durableagents.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.agents.AgentsFile;
import io.durableagents.app.agents.ToolCatalog;
import io.durableagents.model.ModelProviders;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the chaos tools and model reach an {@code agents worker}: the catalog and the model spec. */
class LedgerToolsTest {
  @TempDir Path dir;

  @Test
  void theCatalogHasTheLedgerTools_onlyWhenTheWorkerIsGivenALedger() throws Exception {
    assertThat(ToolCatalog.installed(Map.of()).names())
        .containsExactly("get_weather", "find_restaurant", "book_table");

    ToolCatalog catalog = ToolCatalog.installed(Map.of(LedgerTools.VARIABLE, dir.toString()));
    assertThat(catalog.names())
        .containsExactly(
            "get_weather", "find_restaurant", "book_table", "chaos_a", "chaos_b", "chaos_c");

    AgentsFile agents = AgentsFile.load(ChaosAgents.write(dir), catalog);
    assertThat(agents.agentNames()).containsExactly(ChaosAgents.FREE, ChaosAgents.GATED);
  }

  @Test
  void theChaosAgentsFile_isRefusedByAWorkerWithoutALedger() throws Exception {
    Path file = ChaosAgents.write(dir);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> AgentsFile.load(file, ToolCatalog.installed(Map.of())))
        .hasMessageContaining("no tool named 'chaos_a'");
  }

  @Test
  void theLedgerModelSpec_needsItsDirectory() {
    assertThat(ModelProviders.fromSpec(LedgerModelFactory.PREFIX + dir)).isNotNull();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ModelProviders.fromSpec(LedgerModelFactory.PREFIX))
        .hasMessageContaining("needs the ledger directory");
  }
}
