package dev.fencing.azure.blob;

import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobContainerClientBuilder;
import com.azure.storage.blob.models.CpkInfo;
import com.azure.storage.blob.models.CustomerProvidedKey;
import com.azure.storage.common.policy.RequestRetryPolicy;
import java.util.ArrayList;
import java.util.List;

/** The caller's client, rebuilt for the conditional uploads. */
final class Pipelines {

    private Pipelines() {}

    /**
     * A client of the same container through the same pipeline (credentials, HTTP client, the
     * caller's own policies), with the same customer-provided key and encryption scope, but without
     * its retry policies. The SDK re-sends a failed upload blindly; a conditional upload re-sent
     * after it landed is answered 412, and when another write came in between, the writer cannot
     * tell its own landed write from a refusal (measured with the retries left in: an update whose
     * reply was lost was reported written, its change computed again on a same-token writer's
     * value, instead of unknown). So the fenced upload is sent once, and a lost reply is decided by
     * reading the blob back.
     */
    static BlobContainerClient withoutRetries(BlobContainerClient container) {
        HttpPipeline pipeline = container.getHttpPipeline();
        List<HttpPipelinePolicy> policies = new ArrayList<>();
        for (int i = 0; i < pipeline.getPolicyCount(); i++) {
            HttpPipelinePolicy policy = pipeline.getPolicy(i);
            if (!(policy instanceof RequestRetryPolicy) && !(policy instanceof RetryPolicy)) {
                policies.add(policy);
            }
        }
        HttpPipeline once = new HttpPipelineBuilder().httpClient(pipeline.getHttpClient()).tracer(pipeline.getTracer())
                .policies(policies.toArray(HttpPipelinePolicy[]::new)).build();
        BlobContainerClientBuilder same = new BlobContainerClientBuilder().pipeline(once)
                .endpoint(container.getBlobContainerUrl()).serviceVersion(container.getServiceVersion());
        CpkInfo key = container.getCustomerProvidedKey();
        if (key != null) { // uploads encrypted with the caller's key, as its own client's would be
            same.customerProvidedKey(new CustomerProvidedKey(key.getEncryptionKey()));
        }
        String scope = container.getEncryptionScope();
        if (scope != null) {
            same.encryptionScope(scope);
        }
        return same.buildClient();
    }
}
