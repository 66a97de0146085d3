package dev.fencing.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencing.cli.FencingCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** One in-process run of the CLI, with this module's bench on the class path: its exit code and what it printed. */
record CliRun(int exitCode, String out, String err) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FencingCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    JsonNode json() {
        try {
            return MAPPER.readTree(out);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + out, e);
        }
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
}
