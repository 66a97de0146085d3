package dev.fencing.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;

/** Prints reports as indented JSON, keys in insertion order. */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {}

    public static void print(PrintWriter out, Object report) {
        try {
            out.println(MAPPER.writeValueAsString(report));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the JSON report", e);
        }
    }
}
