package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which check clauses, as MySQL and MariaDB print them, refuse a fence row of no kind. */
class KindCheckClauseTest {

    @ParameterizedTest
    @ValueSource(strings = {"`kind` in ('lock','row')", "(`kind` in (_utf8mb4'lock',_utf8mb4'row'))",
            "(`kind` in (_ascii'row',_ascii'lock'))", "kind IN ('lock', 'row')"})
    void theFinalCheckIsRecognisedAsEachServerPrintsIt(String clause) {
        assertThat(FenceRows.refusesRowsOfNoKind(clause)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"`kind` in ('','lock','row')", "`kind` in (NULL,'lock','row')", "`kind` <> ''",
            "`kind` in ('lock','row','-')", "`resource` in ('lock','row')", "`kind` in ('lock')"})
    void aCheckThatLetsOtherKindsThroughIsNot(String clause) {
        assertThat(FenceRows.refusesRowsOfNoKind(clause)).isFalse();
    }
}
