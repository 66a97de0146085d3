package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdvisoryKeysTest {

    @Test
    void theKeyDerivationNeverChangesBecauseOtherClientsRelyOnIt() {
        // first 8 bytes of SHA-256("fencing:invoice-7"), big-endian, as documented
        assertThat(AdvisoryKeys.of("invoice-7")).isEqualTo(-7651156878944378027L);
    }

    @Test
    void distinctResourcesGetDistinctKeysAndHalvesSplitAsPgLocksShowsThem() {
        assertThat(AdvisoryKeys.of("a")).isNotEqualTo(AdvisoryKeys.of("b"));
        long key = AdvisoryKeys.of("invoice-7");
        assertThat((CounterSql.high(key) << 32) | CounterSql.low(key)).isEqualTo(key);
        assertThat(CounterSql.high(key)).isBetween(0L, 0xffffffffL);
    }
}
