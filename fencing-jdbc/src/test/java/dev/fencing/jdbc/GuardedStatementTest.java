package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Policy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rewrite of hand-written statements: pure string work, checked without a database. */
class GuardedStatementTest {

    private static GuardedStatement parse(String sql) {
        return parse(sql, SqlDialect.POSTGRESQL, Policy.MONOTONIC);
    }

    private static GuardedStatement parse(String sql, SqlDialect dialect, Policy policy) {
        return GuardedStatement.parse(sql, dialect, ":fencing_token", "fencing_token", List.of("id"), policy);
    }

    @Test
    void theGuardIsAddedAndTheCallersConditionIsParenthesized() {
        GuardedStatement statement = parse("UPDATE accounts SET balance = balance - ? WHERE balance >= ? OR 1 = 1");
        assertThat(statement.sql()).isEqualTo("UPDATE accounts SET fencing_token = ?, balance = balance - ? WHERE"
                + " ( balance >= ? OR 1 = 1) AND accounts.id = ? AND accounts.fencing_token <= ?");
        assertThat(statement.bind(List.of(30, 30), 9L, List.of(7L))).containsExactly(9L, 30, 30, 7L, 9L);
    }

    /** A statement that once set the token but never compared it, so token 7 overwrote token 10. */
    @Test
    void aStatementThatSetsTheTokenWithoutComparingItGetsTheComparison() {
        GuardedStatement statement = parse("UPDATE accounts SET balance = ?, fencing_token = :fencing_token WHERE id = ?");
        assertThat(statement.sql()).isEqualTo("UPDATE accounts SET balance = ?, fencing_token = ? WHERE ( id = ?)"
                + " AND accounts.id = ? AND accounts.fencing_token <= ?");
        assertThat(statement.bind(List.of(150, 7L), 7L, List.of(7L))).containsExactly(150, 7L, 7L, 7L, 7L);
    }

    @Test
    void withoutWhereTheKeyAndGuardBecomeTheWhereAndStrictUsesLessThan() {
        GuardedStatement statement = parse("UPDATE public.accounts SET balance = 0", SqlDialect.POSTGRESQL, Policy.STRICT);
        assertThat(statement.sql()).isEqualTo("UPDATE public.accounts SET fencing_token = ?, balance = 0 WHERE"
                + " public.accounts.id = ? AND public.accounts.fencing_token < ?");
        assertThat(statement.writtenTable()).isEqualTo("public.accounts");
    }

    @Test
    void markersAndQuestionMarksInLiteralsAreLeftAloneAndMySqlOrderByLimitStayAfterTheGuard() {
        GuardedStatement statement = parse("UPDATE a SET note = 'why? :fencing_token', t = :fencing_token_old"
                + " WHERE id > ? ORDER BY id LIMIT ?", SqlDialect.MYSQL, Policy.MONOTONIC);
        assertThat(statement.sql()).isEqualTo("UPDATE a SET fencing_token = ?, note = 'why? :fencing_token', t ="
                + " :fencing_token_old WHERE ( id > ?) AND a.id = ? AND a.fencing_token <= ? ORDER BY id LIMIT ?");
        assertThat(statement.bind(List.of(1, 5), 9L, List.of(3L))).containsExactly(9L, 1, 3L, 9L, 5);
    }

    @Test
    void theWrongNumberOfParametersIsRefused() {
        assertThatThrownBy(() -> parse("UPDATE a SET b = ? WHERE id = ?").bind(List.of(1), 1L, List.of(1L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 2 '?' parameters besides the token, got 1 values");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "INSERT INTO accounts (id, balance) VALUES (?, ?)",
        "DELETE FROM accounts WHERE id = ?",
        "WITH gone AS (DELETE FROM accounts RETURNING id) UPDATE accounts SET balance = 0",
        "MERGE INTO accounts USING x ON true WHEN MATCHED THEN DELETE"
    })
    void onlyUpdateIsAccepted(String sql) {
        assertThatThrownBy(() -> parse(sql)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("execute runs only an UPDATE").hasMessageContaining("use delete");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "UPDATE accounts SET balance = 1 WHERE id = ? -- AND fencing_token <= :fencing_token",
        "UPDATE accounts SET balance = 1 WHERE id = ? /*! ) OR (1 = 1 */",
        "UPDATE accounts SET balance = 1 WHERE id = ?; DELETE FROM accounts",
        "UPDATE accounts SET balance = 1 WHERE note = 'a\\' OR 1 = 1 OR ''",
        "UPDATE accounts SET balance = 1 WHERE note = $$) OR (true$$",
        "UPDATE accounts SET balance = 1 WHERE (id = ?",
        "UPDATE accounts SET balance = 1 WHERE note = 'open"
    })
    void whatTheLexerCannotReadLikeTheDatabaseIsRefused(String sql) {
        assertThatThrownBy(() -> parse(sql)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot fence this statement");
    }

    @Test
    void mysqlHashCommentsAreRefused() {
        assertThatThrownBy(() -> parse("UPDATE a SET b = 1 WHERE id = ? # x", SqlDialect.MYSQL, Policy.MONOTONIC))
                .hasMessageContaining("comments are not allowed");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "UPDATE accounts SET fencing_token = 0 WHERE id = ?",
        "UPDATE accounts SET fencing_token = :fencing_token + 1",
        "UPDATE accounts SET \"FENCING_TOKEN\" = ?"
    })
    void theTokenColumnMaySeeOnlyTheMarker(String sql) {
        assertThatThrownBy(() -> parse(sql)).hasMessageContaining("may only be set to the marker");
    }

    @Test
    void keyChangesJoinsAliasesAndReturningAreRefused() {
        assertThatThrownBy(() -> parse("UPDATE accounts SET id = ? WHERE id = ?")).hasMessageContaining("cannot be changed");
        assertThatThrownBy(() -> parse("UPDATE accounts SET accounts.ID = 5")).hasMessageContaining("cannot be changed");
        assertThatThrownBy(() -> parse("UPDATE accounts a SET balance = 1")).hasMessageContaining("no alias");
        assertThatThrownBy(() -> parse("UPDATE ONLY accounts SET balance = 1")).hasMessageContaining("no alias");
        assertThatThrownBy(() -> parse("UPDATE accounts, other SET balance = 1")).hasMessageContaining("no alias");
        assertThatThrownBy(() -> parse("UPDATE accounts SET balance = o.b FROM other o WHERE o.id = accounts.id"))
                .hasMessageContaining("FROM is not supported");
        assertThatThrownBy(() -> parse("UPDATE accounts SET balance = 1 WHERE id = ? RETURNING balance"))
                .hasMessageContaining("RETURNING");
        assertThatThrownBy(() -> parse("UPDATE accounts SET (balance, note) = (1, 'x')"))
                .hasMessageContaining("one column each");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "UPDATE accounts SET (id, balance) = (?, ?)",
        "UPDATE accounts SET (fencing_token) = (0)",
        "UPDATE accounts SET accounts. = 1",
        "UPDATE accounts SET accounts.fencing_token. = 0",
        "UPDATE accounts SET 1 = 1",
        "UPDATE accounts SET balance = 1, = 2"
    })
    void anAssignmentToAnythingButOneColumnIsRefused(String sql) {
        assertThatThrownBy(() -> parse(sql)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one column each");
    }

    @Test
    void aQualifiedColumnIsOneColumn() {
        assertThat(parse("UPDATE accounts SET public.accounts.balance = 1").sql())
                .startsWith("UPDATE accounts SET fencing_token = ?, public.accounts.balance = 1 WHERE");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "UPDATE accounts SET balance = $1 WHERE id = $2",
        "UPDATE accounts SET note = $tag$x$tag$ WHERE id = ?",
        "UPDATE accounts SET balance = 1 WHERE note = $$) OR (true$$"
    })
    void postgresDollarsAreRefusedForWhatTheyAre(String sql) {
        assertThatThrownBy(() -> parse(sql)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'$' (dollar quoting, positional parameters) is not allowed");
    }

    @Test
    void aDollarInsideAMySqlNameIsPartOfTheName() {
        assertThat(parse("UPDATE a SET price$eur = ? WHERE id = ?", SqlDialect.MYSQL, Policy.MONOTONIC).sql())
                .startsWith("UPDATE a SET fencing_token = ?, price$eur = ? WHERE ( id = ?)");
    }

    @Test
    void aDoubledQuoteIsPartOfTheLiteralAndHidesNothing() {
        GuardedStatement statement = parse("UPDATE a SET note = 'it''s ? :fencing_token'' OR ''1' WHERE id = ?");
        assertThat(statement.sql()).isEqualTo("UPDATE a SET fencing_token = ?, note = 'it''s ? :fencing_token'' OR"
                + " ''1' WHERE ( id = ?) AND a.id = ? AND a.fencing_token <= ?");
        assertThat(statement.bind(List.of(4), 9L, List.of(3L))).containsExactly(9L, 4, 3L, 9L);

        GuardedStatement quotedName = parse("UPDATE a SET \"we\"\"ird\" = ? WHERE id = ?");
        assertThat(quotedName.sql()).startsWith("UPDATE a SET fencing_token = ?, \"we\"\"ird\" = ? WHERE");
        assertThatThrownBy(() -> parse("UPDATE a SET note = 'it''s WHERE id = ?"))
                .hasMessageContaining("unterminated");
    }
}
