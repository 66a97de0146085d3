package dev.fencing.spring.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The test application's JPA entity, on the table its Flyway migration creates. */
@Entity
@Table(name = "accounts")
public class Account {

    @Id
    private long id;

    private long balance;

    protected Account() {}

    public Account(long id, long balance) {
        this.id = id;
        this.balance = balance;
    }

    public long getId() {
        return id;
    }

    public long getBalance() {
        return balance;
    }

    public void setBalance(long balance) {
        this.balance = balance;
    }
}
