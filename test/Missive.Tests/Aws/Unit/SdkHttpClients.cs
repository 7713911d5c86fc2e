using System.Net.Http;
using Amazon.Runtime;

namespace Missive.Tests.Aws.Unit;

/// <summary>Makes an AWS SDK client send through a given handler (a recording or scripted endpoint in process).</summary>
public sealed class SdkHttpClients(HttpMessageHandler handler) : HttpClientFactory
{
    public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(handler, disposeHandler: false);
}
