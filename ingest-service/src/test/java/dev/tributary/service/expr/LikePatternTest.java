package dev.tributary.service.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LikePatternTest {

  /** The LIKE semantics as a regular expression: the reference the matcher must agree with. */
  private static boolean reference(String pattern, String text, boolean ignoreCase) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    int flags = Pattern.DOTALL | (ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
    return Pattern.compile(regex.toString(), flags).matcher(text).matches();
  }

  @Test
  void agreesWithTheRegularExpressionOnRandomPatternsAndTexts() {
    Random random = new Random(20261201L);
    String patternAlphabet = "ab%_\\A";
    String textAlphabet = "abAB%_";
    for (int round = 0; round < 20_000; round++) {
      StringBuilder p = new StringBuilder();
      int n = random.nextInt(7);
      for (int i = 0; i < n; i++) {
        char c = patternAlphabet.charAt(random.nextInt(patternAlphabet.length()));
        p.append(c);
        if (c == '\\') {
          p.append(textAlphabet.charAt(random.nextInt(textAlphabet.length())));
        }
      }
      StringBuilder t = new StringBuilder();
      int m = random.nextInt(9);
      for (int i = 0; i < m; i++) {
        t.append(textAlphabet.charAt(random.nextInt(textAlphabet.length())));
      }
      for (boolean ignoreCase : new boolean[] {false, true}) {
        String pattern = p.toString();
        String text = t.toString();
        assertThat(LikePattern.compile(pattern, '\\', ignoreCase).test(text))
            .as("'%s' LIKE '%s' (ignore case %s)", text, pattern, ignoreCase)
            .isEqualTo(reference(pattern, text, ignoreCase));
      }
    }
  }

  @Test
  void underscoreMatchesOneCodePointOutsideTheBasicPlane() {
    assertThat(LikePattern.compile("a_b", '\\', false).test("a\uD83D\uDE00b")).isTrue();
    assertThat(LikePattern.compile("a__b", '\\', false).test("a\uD83D\uDE00b")).isFalse();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES) // a hang guard: a backtracking regex never ends here
  void aPatternThatMakesARegexBacktrackIsMatchedAtOnce() {
    String text = "a".repeat(20_000);
    assertThat(LikePattern.compile("%a%a%a%a%a%a%a%a%a%a%a%ab", '\\', false).test(text)).isFalse();
    assertThat(LikePattern.compile("%a_a%a_a%a%", '\\', false).test(text)).isTrue();
  }

  @Test
  void aTrailingEscapeIsRefused() {
    assertThatThrownBy(() -> LikePattern.compile("ab\\", '\\', false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("LIKE pattern 'ab\\' ends with the escape character '\\'");
  }
}
