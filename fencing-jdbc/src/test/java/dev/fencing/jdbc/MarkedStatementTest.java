package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MarkedStatementTest {

    @Test
    void markersBecomePlaceholdersAndTheTokenIsBoundInPlace() {
        MarkedStatement statement = MarkedStatement.parse("UPDATE a SET b = ?, fencing_token = :fencing_token WHERE id = ?"
                + " AND fencing_token <= :fencing_token", ":fencing_token", "fencing_token");
        assertThat(statement.sql()).isEqualTo("UPDATE a SET b = ?, fencing_token = ? WHERE id = ? AND fencing_token <= ?");
        assertThat(statement.bind(List.of("B", 7), 42L)).containsExactly("B", 42L, 7, 42L);
    }

    @Test
    void markersAndQuestionMarksInsideStringLiteralsAreLeftAlone() {
        MarkedStatement statement = MarkedStatement.parse("UPDATE a SET note = 'why? :fencing_token', t = :fencing_token"
                + " WHERE id = ?", ":fencing_token", "t");
        assertThat(statement.sql()).isEqualTo("UPDATE a SET note = 'why? :fencing_token', t = ? WHERE id = ?");
        assertThat(statement.bind(List.of(1), 9L)).containsExactly(9L, 1);
    }

    @Test
    void aLongerNameStartingWithTheMarkerIsNotTheMarker() {
        MarkedStatement statement = MarkedStatement.parse("UPDATE a SET t = :fencing_token, u = :fencing_token_old",
                ":fencing_token", "t");
        assertThat(statement.sql()).isEqualTo("UPDATE a SET t = ?, u = :fencing_token_old");
    }

    @Test
    void aStatementWithoutTheMarkerOrWithTheWrongParameterCountIsRefused() {
        assertThatThrownBy(() -> MarkedStatement.parse("UPDATE a SET b = ?", ":fencing_token", "fencing_token"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must set and check the token through :fencing_token");
        MarkedStatement statement = MarkedStatement.parse("UPDATE a SET t = :fencing_token WHERE id = ?", ":fencing_token", "t");
        assertThatThrownBy(() -> statement.bind(List.of(), 1L))
                .hasMessageContaining("has 1 '?' parameters besides the token, got 0 values");
    }
}
