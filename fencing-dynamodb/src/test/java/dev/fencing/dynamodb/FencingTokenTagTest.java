package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;

/** The token attribute's name is checked when the table schema is built, before any client exists. */
class FencingTokenTagTest {

    /** The bean the README used to show: the getter maps to {@code fencingToken}, the wrapper writes {@code fencing_token}. */
    @DynamoDbBean
    public static class MisnamedAccount {
        private String pk;
        private Long fencingToken;

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        @DynamoDbFencingToken
        public Long getFencingToken() {
            return fencingToken;
        }

        public void setFencingToken(Long fencingToken) {
            this.fencingToken = fencingToken;
        }
    }

    /** A wrapper configured with {@code tokenAttribute("lease_token")}, and a bean that says so. */
    @DynamoDbBean
    public static class CustomNamedAccount {
        private String pk;
        private Long token;

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        @DynamoDbFencingToken(attributeName = "lease_token")
        @DynamoDbAttribute("lease_token")
        public Long getToken() {
            return token;
        }

        public void setToken(Long token) {
            this.token = token;
        }
    }

    @DynamoDbBean
    public static class StringToken {
        private String pk;
        private String token;

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        @DynamoDbFencingToken
        @DynamoDbAttribute("fencing_token")
        public String getToken() {
            return token;
        }

        public void setToken(String token) {
            this.token = token;
        }
    }

    @Test
    void aTokenAttributeNamedOtherwiseThanTheWrappersIsRefusedWhenTheSchemaIsBuilt() {
        assertThatThrownBy(() -> TableSchema.fromBean(MisnamedAccount.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasStackTraceContaining("the fencing token attribute is named 'fencingToken', but the low-level"
                        + " FencedDynamoDb keeps the token in 'fencing_token'")
                .hasStackTraceContaining("@DynamoDbAttribute(\"fencing_token\")");
    }

    @Test
    void theDefaultNameAndADeclaredCustomNameAreAccepted() {
        assertThat(TableSchema.fromBean(Account.class).tableMetadata()
                .customMetadataObject(FencingTokenTag.METADATA_KEY, String.class)).hasValue("fencing_token");
        assertThat(TableSchema.fromBean(CustomNamedAccount.class).tableMetadata()
                .customMetadataObject(FencingTokenTag.METADATA_KEY, String.class)).hasValue("lease_token");
    }

    @Test
    void aNonNumericTokenIsRefusedWhenTheSchemaIsBuilt() {
        assertThatThrownBy(() -> TableSchema.fromBean(StringToken.class))
                .hasStackTraceContaining("must be a number (N), got S");
    }
}
