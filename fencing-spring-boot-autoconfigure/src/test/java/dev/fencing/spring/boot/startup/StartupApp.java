package dev.fencing.spring.boot.startup;

import dev.fencing.core.LockProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The application {@code StartFailureBoxIT} starts in a child JVM whose class path has Spring Boot's
 * jars first, as a packaged jar has: one bean of its own needs the lock provider, so a misconfigured
 * provider shows as a missing bean, the way users meet it. Exits 0 once started.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class StartupApp {

    @Bean
    String needsLocks(LockProvider locks) {
        return locks.getClass().getSimpleName();
    }

    public static void main(String[] args) {
        SpringApplication.run(StartupApp.class, args).close();
        System.out.println("STARTED");
    }
}
