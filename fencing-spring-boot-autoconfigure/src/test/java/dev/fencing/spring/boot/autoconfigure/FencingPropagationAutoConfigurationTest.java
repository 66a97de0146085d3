package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.propagation.spring.FencingProblemAdvice;
import dev.fencing.propagation.spring.FencingTokenArgumentResolver;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

class FencingPropagationAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(WebMvcAutoConfiguration.class, FencingPropagationAutoConfiguration.class));

    @Test
    void aServletApplicationGetsTheTokenArgumentAndTheProblemAnswers() {
        web.run(context -> {
            assertThat(context).hasSingleBean(FencingProblemAdvice.class);
            assertThat(context.getBean(RequestMappingHandlerAdapter.class).getCustomArgumentResolvers())
                    .hasAtLeastOneElementOfType(FencingTokenArgumentResolver.class);
        });
    }

    @Test
    void anAdviceOfTheApplicationsOwnIsKept() {
        FencingProblemAdvice own = new FencingProblemAdvice();
        web.withBean(FencingProblemAdvice.class, () -> own)
                .run(context -> assertThat(context.getBean(FencingProblemAdvice.class)).isSameAs(own));
    }

    @Test
    void nothingWithoutTheModuleOrOutsideAWebApplication() {
        web.withClassLoader(new FilteredClassLoader(FencingTokenArgumentResolver.class))
                .run(context -> assertThat(context).doesNotHaveBean(FencingProblemAdvice.class));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencingPropagationAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(FencingProblemAdvice.class));
    }
}
