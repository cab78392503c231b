using System.Globalization;
using System.Text;
using System.Text.Json;
using Voron.LoadTests.Load;

namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// The http experiment's load, generated in this process as NBomber.Http users generate it: a
/// scenario per backend, endpoint and connection count, whose copies
/// (<see cref="Simulation.KeepConstant"/>, one per connection) share one <see cref="HttpClient"/> on a
/// <see cref="SocketsHttpHandler"/> allowed as many connections as there are copies, each copy
/// sending its next request when its last one is answered (a closed loop, as wrk's connections).
/// One step per request, named after the endpoint ("post", "get", "query"). What a response counts as:
/// <list type="bullet">
/// <item>2xx with the body the request asked for: ok, its status code and body length;</item>
/// <item>non-2xx: a failure under its status code, a wrong answer (every request is one that should succeed);</item>
/// <item>2xx with a body that is not the answer (another product, a category not asked for): <see cref="WrongBody"/>, a wrong answer;</item>
/// <item>no answer within the client's timeout: <see cref="TimedOut"/>, a figure of a loaded machine, not a wrong answer;</item>
/// <item>a connection that failed (<see cref="HttpRequestException"/>): <see cref="SocketError"/>.</item>
/// </list>
/// </summary>
internal static class HttpScenarios
{
    public const string TimedOut = "timeout";
    public const string WrongBody = "wrong-body";
    public const string SocketError = "socket-error";

    /// <summary>Categories the POSTs spread products over and the queries ask for: c0 .. c15.</summary>
    public const int Categories = 16;

    public static ScenarioProps Create(HttpServer server, string endpoint, int connections, TimeSpan duration, TimeSpan requestTimeout, CreatedProducts created)
    {
        HttpClient? client = null;
        return Scenario.Create($"{server.Backend} {endpoint} {connections}", context =>
                Step.Run(endpoint, context, () => SendAsync(client!, endpoint, context, created)))
            .WithInit(_ =>
            {
                client = NewClient(server.Address, connections, requestTimeout);
                return Task.CompletedTask;
            })
            .WithClean(() =>
            {
                client?.Dispose();
                return Task.CompletedTask;
            })
            .WithoutWarmUp()
            .WithLoadSimulations(Simulation.KeepConstant(copies: connections, during: duration));
    }

    /// <summary>The figures the failures of a run come to, by kind.</summary>
    public static (long NonSuccess, long WrongBodies, long Timeouts, long SocketErrors) Failures(ScenarioStats stats)
    {
        long Count(Func<string, bool> kind) => stats.StatusCodes.Where(s => s.IsError && kind(s.StatusCode)).Sum(s => s.Count);
        return (
            Count(code => int.TryParse(code, NumberStyles.None, CultureInfo.InvariantCulture, out _)),
            Count(code => code == WrongBody),
            Count(code => code == TimedOut),
            Count(code => code == SocketError));
    }

    private static HttpClient NewClient(string address, int connections, TimeSpan requestTimeout) =>
        new(new SocketsHttpHandler
        {
            MaxConnectionsPerServer = connections,
            PooledConnectionLifetime = Timeout.InfiniteTimeSpan,
            UseCookies = false,
            UseProxy = false,
            AllowAutoRedirect = false,
            ConnectTimeout = requestTimeout,
        })
        {
            BaseAddress = new Uri(address),
            Timeout = requestTimeout,
        };

    private static async ValueTask<Response> SendAsync(HttpClient client, string endpoint, ScenarioContext context, CreatedProducts created)
    {
        var random = context.Random;
        var category = "c" + random.Next(Categories).ToString(CultureInfo.InvariantCulture);
        string? key = null;
        double maxPrice = 0;
        using var request = endpoint switch
        {
            HttpExperiment.Post => new HttpRequestMessage(HttpMethod.Post, "/products")
            {
                Content = new StringContent(
                    string.Create(CultureInfo.InvariantCulture, $$"""{"name":"product {{context.CopyNumber}}-{{context.InvocationNumber}}","category":"{{category}}","price":{{random.Next(1, 1001)}}}"""),
                    Encoding.UTF8,
                    "application/json"),
            },
            HttpExperiment.Get => new HttpRequestMessage(HttpMethod.Get, "/products/" + (key = created.Pick(random))),
            _ => new HttpRequestMessage(HttpMethod.Get, string.Create(CultureInfo.InvariantCulture, $"/products?category={category}&maxPrice={maxPrice = random.Next(50, 1001)}&take=20")),
        };
        try
        {
            using var response = await client.SendAsync(request, HttpCompletionOption.ResponseContentRead, context.CancellationToken).ConfigureAwait(false);
            var body = await response.Content.ReadAsByteArrayAsync(context.CancellationToken).ConfigureAwait(false);
            var status = ((int)response.StatusCode).ToString(CultureInfo.InvariantCulture);
            if (!response.IsSuccessStatusCode)
            {
                return Response.Fail(status, $"{request.Method} {request.RequestUri}: {status}", body.Length);
            }

            var wrong = endpoint switch
            {
                HttpExperiment.Post => CheckCreated(response, body, created),
                HttpExperiment.Get => CheckProduct(body, "products/" + key),
                _ => CheckQuery(body, category, maxPrice),
            };
            return wrong == null
                ? Response.Ok(status, body.Length)
                : Response.Fail(WrongBody, $"{request.Method} {request.RequestUri}: {wrong}", body.Length);
        }
        catch (TaskCanceledException) when (!context.CancellationToken.IsCancellationRequested)
        {
            return Response.Fail(TimedOut, $"{request.Method} {request.RequestUri}: no answer within {client.Timeout.TotalSeconds:F0} s");
        }
        catch (HttpRequestException e)
        {
            return Response.Fail(SocketError, $"{request.Method} {request.RequestUri}: {e.Message}");
        }
    }

    /// <summary>A 201 names the new product in its Location header and returns it with that id; its key is kept for the GET runs.</summary>
    private static string? CheckCreated(HttpResponseMessage response, byte[] body, CreatedProducts created)
    {
        var location = response.Headers.Location?.OriginalString;
        if (location == null || !location.StartsWith("/products/", StringComparison.Ordinal))
        {
            return $"a created product's Location is '{location}'";
        }

        var key = location["/products/".Length..];
        var wrong = CheckProduct(body, "products/" + key);
        if (wrong == null)
        {
            created.Add(key);
        }

        return wrong;
    }

    private static string? CheckProduct(byte[] body, string id)
    {
        using var json = Parse(body);
        if (json?.RootElement is not { ValueKind: JsonValueKind.Object } product)
        {
            return "the body is not a JSON object";
        }

        return product.TryGetProperty("id", out var found) && found.GetString() == id
            ? null
            : $"asked for {id}, the body is {Encoding.UTF8.GetString(body)}";
    }

    /// <summary>A query's answer is an array of at most 20 products of the category asked for, none dearer than the price asked for.</summary>
    private static string? CheckQuery(byte[] body, string category, double maxPrice)
    {
        using var json = Parse(body);
        if (json?.RootElement is not { ValueKind: JsonValueKind.Array } array || array.GetArrayLength() > 20)
        {
            return "the body is not a JSON array of at most 20 products";
        }

        foreach (var product in array.EnumerateArray())
        {
            if (product.ValueKind != JsonValueKind.Object
                || !product.TryGetProperty("category", out var c) || c.GetString() != category
                || !product.TryGetProperty("price", out var price) || price.GetDouble() > maxPrice)
            {
                return $"asked for category {category} up to {maxPrice}, got {product}";
            }
        }

        return null;
    }

    private static JsonDocument? Parse(byte[] body)
    {
        try
        {
            return JsonDocument.Parse(body);
        }
        catch (JsonException)
        {
            return null;
        }
    }
}
