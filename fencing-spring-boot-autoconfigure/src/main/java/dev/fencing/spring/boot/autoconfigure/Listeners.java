package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;

/** The application's {@link FencingListener} beans as the one listener a provider's builder takes. */
final class Listeners {

    private Listeners() {}

    /** None, the one bean, or all of them in their {@code @Order}. */
    static FencingListener of(ObjectProvider<FencingListener> beans) {
        return of(beans.orderedStream().toList());
    }

    /** None, the one listener, or all of them in this order. */
    static FencingListener of(List<FencingListener> all) {
        return switch (all.size()) {
            case 0 -> FencingListener.NONE;
            case 1 -> all.get(0);
            default -> FencingListener.composite(all.toArray(FencingListener[]::new));
        };
    }
}
