package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The packaged jar carries {@code META-INF/spring-configuration-metadata.json} (IDE completion of
 * {@code fencing.*}), with every property {@link FencingProperties} binds, each with its description
 * and, where it has one, its default. The property list is read from the class by reflection, not
 * from the file, so a property the processor missed fails here.
 */
class ConfigurationMetadataIT {

    /** One property as the binder sees it: its name and its value on a fresh {@link FencingProperties}. */
    record Bound(String name, Object value) {}

    @Test
    void theJarCarriesEveryPropertyWithItsDescriptionAndDefault() throws Exception {
        Map<String, JsonNode> metadata = metadataOfTheJar();
        List<Bound> bound = new ArrayList<>();
        walk("fencing", new FencingProperties(), bound);
        assertThat(bound).as("properties found by reflection").hasSizeGreaterThan(20);
        for (Bound property : bound) {
            JsonNode entry = metadata.get(property.name());
            assertThat(entry).as("%s in the metadata", property.name()).isNotNull();
            assertThat(entry.path("description").asString("")).as("%s's description", property.name()).isNotBlank();
            boolean hasDefault = property.value() != null && !(property.value() instanceof Collection<?> c && c.isEmpty())
                    && !(property.value() instanceof Map<?, ?>);
            if (hasDefault) {
                assertThat(entry.has("defaultValue")).as("%s's default (%s)", property.name(), property.value()).isTrue();
            }
        }
        assertThat(metadata).as("the hand-written additions are merged").containsKey("management.health.fencing.enabled");
    }

    private static Map<String, JsonNode> metadataOfTheJar() throws IOException {
        Path jar;
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            jar = files.filter(file -> file.getFileName().toString().matches("fencing-spring-boot-autoconfigure-[^-]+"
                    + "(-SNAPSHOT)?\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no packaged jar in target/: this test runs after package"));
        }
        Map<String, JsonNode> byName = new HashMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            var entry = file.getJarEntry("META-INF/spring-configuration-metadata.json");
            assertThat(entry).as("META-INF/spring-configuration-metadata.json in %s", jar).isNotNull();
            try (InputStream in = file.getInputStream(entry)) {
                for (JsonNode property : JsonMapper.builder().build().readTree(in).path("properties")) {
                    byName.put(property.path("name").asString(), property);
                }
            }
        }
        return byName;
    }

    /** Adds every bound property under {@code prefix} of {@code group} (a property group of FencingProperties). */
    private static void walk(String prefix, Object group, List<Bound> bound) throws IllegalAccessException,
            InvocationTargetException {
        for (Method getter : group.getClass().getDeclaredMethods()) {
            String name = getter.getName();
            boolean accessor = Modifier.isPublic(getter.getModifiers()) && !Modifier.isStatic(getter.getModifiers())
                    && getter.getParameterCount() == 0
                    && (name.startsWith("get") || name.startsWith("is") && getter.getReturnType() == boolean.class);
            if (!accessor) {
                continue;
            }
            String property = prefix + "." + kebab(name.substring(name.startsWith("is") ? 2 : 3));
            Object value = getter.invoke(group);
            if (getter.getReturnType().getDeclaringClass() == FencingProperties.class) {
                walk(property, value, bound);
            } else {
                bound.add(new Bound(property, value));
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
