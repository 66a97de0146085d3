package dev.fencing.propagation.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import dev.fencing.propagation.spring.FencingProblemAdvice;
import dev.fencing.propagation.spring.FencingTokenArgumentResolver;
import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The server snippets of README.md and docs/propagation.md, verbatim: compiled by this module's
 * build, found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class ServerSnippets {

    private ServerSnippets() {}

    @RestController
    static class ChargesController {
        private final FencedStore charges;   // any fenced store: JDBC, DynamoDB, S3, Redis

        ChargesController(FencedStore charges) {
            this.charges = charges;
        }

        @PutMapping("/charges/{order}")
        void charge(@PathVariable("order") String order, @RequestBody String charge, FencingToken token) {
            charges.write(token, order, charge);   // a zombie's token: refused, answered 409 with the refusal
        }
    }

    @Configuration
    @Import(FencingProblemAdvice.class)   // refusals as RFC 9457 problems the toolkit's clients read back
    static class FencingWebConfig implements WebMvcConfigurer {
        @Override
        public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
            resolvers.add(new FencingTokenArgumentResolver());   // FencingToken as a handler parameter
        }
    }

    // README.md: the service
    @RestController
    static class PaymentsController {
        private final FencedStore charges;

        PaymentsController(FencedStore charges) {
            this.charges = charges;
        }

        @PutMapping("/charges/{order}")   // FencingTokenArgumentResolver gives the handler the caller's token
        void charge(@PathVariable("order") String order, @RequestBody String charge, FencingToken token) {
            charges.write(token, order, charge);   // refused if a newer holder wrote: answered 409, rethrown above
        }
    }

    static FencingTokenFilter gatedFilter(FencedStore gateMarks) {
        return FencingTokenFilter.builder()
                .requireToken()                          // no token: 428
                .gate(TokenGate.over(gateMarks))         // an older token than one admitted before: 409
                .build();
    }
}
