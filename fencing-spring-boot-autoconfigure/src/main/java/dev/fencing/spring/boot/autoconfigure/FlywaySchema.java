package dev.fencing.spring.boot.autoconfigure;

import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where the application's Flyway run creates the toolkit's tables: {@code spring.flyway.default-schema},
 * else the first of {@code spring.flyway.schemas} (Flyway creates unqualified objects there), when
 * the toolkit's migrations join that run. The auto-configured fences and the Postgres provider then
 * name their tables in that schema, instead of looking through each connection's search path (or
 * current database), where they are not.
 */
final class FlywaySchema {

    private FlywaySchema() {}

    /** The schema, if the application's Flyway run puts the toolkit's tables in a named one. */
    static Optional<String> of(Environment environment) {
        Binder binder = Binder.get(environment);
        if (!binder.bind("fencing.flyway.enabled", Boolean.class).orElse(true)
                || !binder.bind("spring.flyway.enabled", Boolean.class).orElse(true)) {
            return Optional.empty();
        }
        String defaultSchema = binder.bind("spring.flyway.default-schema", String.class).orElse("").strip();
        if (!defaultSchema.isEmpty()) {
            return Optional.of(defaultSchema);
        }
        Optional<String> named = List.of(binder.bind("spring.flyway.schemas", String[].class).orElse(new String[0]))
                .stream().map(String::strip).filter(schema -> !schema.isEmpty()).findFirst();
        return named;
    }

    /**
     * {@code table} in the Flyway schema when {@code table} is the toolkit's default name and the
     * application named none of its own; otherwise {@code table} as set.
     */
    static String qualify(Environment environment, String table, String defaultTable) {
        if (!table.equals(defaultTable)) {
            return table;
        }
        return of(environment).map(schema -> schema + "." + table).orElse(table);
    }
}
