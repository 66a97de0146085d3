package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Token numbers are read and written exactly, never through a double. */
class MarksTest {

    @Test
    void marksAboveTwoToThe53AreReadExactly() {
        assertThat(Marks.of(AttributeValue.fromN("9007199254740993"))).hasValue(9007199254740993L);
        assertThat(Marks.of(AttributeValue.fromN(Long.toString(Long.MAX_VALUE)))).hasValue(Long.MAX_VALUE);
        assertThat(Marks.number(9007199254740993L)).isEqualTo(AttributeValue.fromN("9007199254740993"));
    }

    @Test
    void aMarkWrittenAsADecimalByAnotherClientIsRoundedUpSoThePolicyDecidesAsTheServerDid() {
        assertThat(Marks.of(AttributeValue.fromN("7E0"))).hasValue(7);
        assertThat(Marks.of(AttributeValue.fromN("6.0"))).hasValue(6);
        assertThat(Marks.of(AttributeValue.fromN("6.5"))).hasValue(7); // token 6 < 6.5 is stale; 7 >= 6.5 is not
        assertThat(Marks.of(AttributeValue.fromN("9007199254740992.5"))).hasValue(9007199254740993L);
        assertThat(Marks.of(AttributeValue.fromN("1E+30"))).hasValue(Long.MAX_VALUE);
        assertThat(Marks.of(AttributeValue.fromS("7"))).isEmpty();
        assertThat(Marks.of(null)).isEmpty();
    }

    @Test
    void aBeanTokenMustBeAWholeNumberAsALongWritesIt() {
        assertThat(Marks.requireToken("t", AttributeValue.fromN("9007199254740993"))).isEqualTo(9007199254740993L);
        for (String bad : new String[] {"0", "-1", "5.0", "9.007199254740992E15", "05", "9223372036854775808"}) {
            assertThatThrownBy(() -> Marks.requireToken("t", AttributeValue.fromN(bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got " + bad);
        }
        assertThatThrownBy(() -> Marks.requireToken("t", null)).hasMessageContaining("got nothing");
        assertThatThrownBy(() -> Marks.requireToken("t", AttributeValue.fromNul(true))).hasMessageContaining("got ");
    }
}
