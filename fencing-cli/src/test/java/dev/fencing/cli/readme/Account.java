package dev.fencing.cli.readme;

import dev.fencing.dynamodb.DynamoDbFencingToken;
import software.amazon.awssdk.enhanced.dynamodb.extensions.annotations.DynamoDbVersionAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;

/** docs/dynamodb.md's enhanced-client bean, verbatim (checked by {@link DocsSnippetsTest}). */
@DynamoDbBean
public class Account {
    private String pk;
    private Long fencingToken;
    private Long version;

    @DynamoDbPartitionKey public String getPk() { return pk; }
    public void setPk(String pk) { this.pk = pk; }
    @DynamoDbFencingToken @DynamoDbAttribute("fencing_token") public Long getFencingToken() { return fencingToken; }
    public void setFencingToken(Long fencingToken) { this.fencingToken = fencingToken; }
    @DynamoDbVersionAttribute public Long getVersion() { return version; }       // still enforced
    public void setVersion(Long version) { this.version = version; }
}
