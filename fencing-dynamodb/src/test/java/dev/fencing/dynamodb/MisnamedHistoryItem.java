package dev.fencing.dynamodb;

import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;

/**
 * {@link HistoryItem} as the README used to show it: the token attribute left to the bean's
 * property name, {@code fencingToken}, while the low-level path writes {@code fencing_token} — the
 * two paths then do not see each other's marks. The extension now refuses that
 * mismatch unless it is declared, as here, for a wrapper configured with {@code fencingToken}.
 */
@DynamoDbBean
public class MisnamedHistoryItem {
    private String pk;
    private String v;
    private Long version;
    private Long fencingToken;

    @DynamoDbPartitionKey
    public String getPk() {
        return pk;
    }

    public void setPk(String pk) {
        this.pk = pk;
    }

    public String getV() {
        return v;
    }

    public void setV(String v) {
        this.v = v;
    }

    public Long getVersion() {
        return version;
    }

    public void setVersion(Long version) {
        this.version = version;
    }

    @DynamoDbFencingToken(attributeName = "fencingToken")
    public Long getFencingToken() {
        return fencingToken;
    }

    public void setFencingToken(Long fencingToken) {
        this.fencingToken = fencingToken;
    }
}
