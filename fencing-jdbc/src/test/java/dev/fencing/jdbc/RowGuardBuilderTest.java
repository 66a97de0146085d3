package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link RowGuard.Builder} refuses what it cannot use, naming the value and what is allowed. */
class RowGuardBuilderTest {

    @Test
    void aTableThatIsNoPlainSqlNameIsRefused() {
        assertThatThrownBy(() -> RowGuard.builder("accounts; DROP TABLE accounts", "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'accounts; DROP TABLE accounts'")
                .hasMessageContaining("unquoted SQL name");
        assertThatThrownBy(() -> RowGuard.builder(null, "id"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 'null'");
    }

    @Test
    void keyColumnsMustBeNamedEachOnceAsPlainSqlNames() {
        assertThatThrownBy(() -> RowGuard.builder("accounts"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name the key column(s) of table 'accounts', got none");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id", "id-2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key column must be an unquoted SQL name")
                .hasMessageContaining("'id-2'");
        assertThatThrownBy(() -> RowGuard.builder("pairs", "a", "A"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key column 'A' of table 'pairs' is named twice")
                .hasMessageContaining("[a, A]");
    }

    @Test
    void theTokenColumnMustBeAPlainSqlNameApartFromTheKey() {
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").tokenColumn("token--"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token column must be an unquoted SQL name")
                .hasMessageContaining("'token--'");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").tokenColumn("ID"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token column 'ID' is a key column of table 'accounts' [id]");
    }

    @Test
    void policyFenceTableAndListenerAreChecked() {
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").fenceTable("ops.fence.rows"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ops.fence.rows'")
                .hasMessageContaining("optionally schema-qualified");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
    }
}
