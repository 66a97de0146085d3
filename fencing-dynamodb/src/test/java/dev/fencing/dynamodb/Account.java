package dev.fencing.dynamodb;

import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;

/** A bean with a fencing token attribute, as docs/dynamodb.md tells a user of the enhanced client to write it. */
@DynamoDbBean
public class Account {
    private String pk;
    private Long balance;
    private String note;
    private Long fencingToken;

    static Account of(String pk, Long balance, String note, Long token) {
        Account account = new Account();
        account.setPk(pk);
        account.setBalance(balance);
        account.setNote(note);
        account.setFencingToken(token);
        return account;
    }

    @DynamoDbPartitionKey
    public String getPk() {
        return pk;
    }

    public void setPk(String pk) {
        this.pk = pk;
    }

    public Long getBalance() {
        return balance;
    }

    public void setBalance(Long balance) {
        this.balance = balance;
    }

    public String getNote() {
        return note;
    }

    public void setNote(String note) {
        this.note = note;
    }

    @DynamoDbFencingToken
    @DynamoDbAttribute("fencing_token")
    public Long getFencingToken() {
        return fencingToken;
    }

    public void setFencingToken(Long fencingToken) {
        this.fencingToken = fencingToken;
    }
}
