package io.durableagents.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.internal.wire.MergePatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The examples of RFC 7386, Appendix A, plus: the inputs are never modified. */
class MergePatchTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0} + {1} = {2}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "{'a':'b'}              | {'a':'c'}            | {'a':'c'}",
        "{'a':'b'}              | {'b':'c'}            | {'a':'b','b':'c'}",
        "{'a':'b'}              | {'a':null}           | {}",
        "{'a':'b','b':'c'}      | {'a':null}           | {'b':'c'}",
        "{'a':['b']}            | {'a':'c'}            | {'a':'c'}",
        "{'a':'c'}              | {'a':['b']}          | {'a':['b']}",
        "{'a':{'b':'c'}}        | {'a':{'b':'d','c':null}} | {'a':{'b':'d'}}",
        "{'a':[{'b':'c'}]}      | {'a':[1]}            | {'a':[1]}",
        "['a','b']              | ['c','d']            | ['c','d']",
        "{'a':'b'}              | ['c']                | ['c']",
        "{'a':'foo'}            | null                 | null",
        "{'a':'foo'}            | 'bar'                | 'bar'",
        "{'e':null}             | {'a':1}              | {'e':null,'a':1}",
        "[1,2]                  | {'a':'b','c':null}   | {'a':'b'}",
        "{}                     | {'a':{'bb':{'ccc':null}}} | {'a':{'bb':{}}}",
      })
  void appliesAsTheRfcSays(String target, String patch, String expected) throws Exception {
    JsonNode targetNode = json(target);
    JsonNode patchNode = json(patch);
    String targetBefore = targetNode.toString();
    String patchBefore = patchNode.toString();

    assertThat(MergePatch.apply(targetNode, patchNode)).isEqualTo(json(expected));
    assertThat(targetNode.toString()).isEqualTo(targetBefore);
    assertThat(patchNode.toString()).isEqualTo(patchBefore);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {"{'a':1} | {'a':1}", "{'a':{'b':null}} | {'a':{}}"})
  void aMissingTarget_isAnEmptyObject(String patch, String expected) throws Exception {
    assertThat(MergePatch.apply(null, json(patch))).isEqualTo(json(expected));
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }
}
