using Npgsql;

namespace Voron.PostgreSql.Export;

/// <summary>
/// Connection strings as users write them: libpq's URI (<c>postgresql://user:password@host:port/database?sslmode=require</c>,
/// the form psql and most hosting providers print) or Npgsql's keyword form. Npgsql reads only
/// the keyword form, so a URI is turned into one here.
/// </summary>
internal static class ConnectionStrings
{
    /// <summary>The URI query parameters understood, and the Npgsql keyword each becomes.</summary>
    private static readonly Dictionary<string, string> Parameters = new(StringComparer.Ordinal)
    {
        ["sslmode"] = "SSL Mode",
        ["application_name"] = "Application Name",
        ["connect_timeout"] = "Timeout",
        ["options"] = "Options",
        ["target_session_attrs"] = "Target Session Attributes",
    };

    /// <summary>An Npgsql connection string for <paramref name="text"/>; <see cref="ArgumentException"/> saying what is wrong when it is neither form.</summary>
    public static string ToNpgsql(string text)
    {
        var trimmed = text.Trim();
        if (trimmed.Length == 0)
        {
            throw new ArgumentException("The PostgreSQL connection string is empty. Give postgresql://user:password@host:port/database or Host=...;Database=...;Username=....", nameof(text));
        }

        var builder = trimmed.StartsWith("postgresql://", StringComparison.OrdinalIgnoreCase) || trimmed.StartsWith("postgres://", StringComparison.OrdinalIgnoreCase)
            ? FromUri(trimmed)
            : FromKeywords(trimmed);
        if (string.IsNullOrEmpty(builder.Host))
        {
            builder.Host = "localhost";
        }

        return builder.ConnectionString;
    }

    private static NpgsqlConnectionStringBuilder FromKeywords(string text)
    {
        if (text.Contains("://", StringComparison.Ordinal))
        {
            throw new ArgumentException($"'{Redact(text)}' is not a PostgreSQL URI: it must start with postgresql:// (or postgres://).", nameof(text));
        }

        try
        {
            return new NpgsqlConnectionStringBuilder(text);
        }
        catch (Exception e) when (e is ArgumentException or FormatException or KeyNotFoundException)
        {
            throw new ArgumentException($"The PostgreSQL connection string cannot be read: {e.Message} Give postgresql://user:password@host:port/database or Npgsql's Host=...;Database=...;Username=....", nameof(text), e);
        }
    }

    private static NpgsqlConnectionStringBuilder FromUri(string text)
    {
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri))
        {
            throw new ArgumentException($"'{Redact(text)}' is not a valid PostgreSQL URI: expected postgresql://user:password@host:port/database.", nameof(text));
        }

        var builder = new NpgsqlConnectionStringBuilder { Host = uri.Host.Trim('[', ']') };
        if (!uri.IsDefaultPort && uri.Port > 0)
        {
            builder.Port = uri.Port;
        }

        if (uri.UserInfo.Length > 0)
        {
            var colon = uri.UserInfo.IndexOf(':', StringComparison.Ordinal);
            builder.Username = Uri.UnescapeDataString(colon < 0 ? uri.UserInfo : uri.UserInfo[..colon]);
            if (colon >= 0)
            {
                builder.Password = Uri.UnescapeDataString(uri.UserInfo[(colon + 1)..]);
            }
        }

        var database = Uri.UnescapeDataString(uri.AbsolutePath.TrimStart('/'));
        if (database.Contains('/', StringComparison.Ordinal))
        {
            throw new ArgumentException($"'{Redact(text)}' names the database '{database}', which has a '/': a PostgreSQL URI's path is one database name.", nameof(text));
        }

        if (database.Length > 0)
        {
            builder.Database = database;
        }

        foreach (var pair in uri.Query.TrimStart('?').Split('&', StringSplitOptions.RemoveEmptyEntries))
        {
            var equals = pair.IndexOf('=', StringComparison.Ordinal);
            var name = Uri.UnescapeDataString(equals < 0 ? pair : pair[..equals]);
            var value = equals < 0 ? "" : Uri.UnescapeDataString(pair[(equals + 1)..]);
            if (!Parameters.TryGetValue(name, out var keyword))
            {
                throw new ArgumentException(
                    $"The PostgreSQL URI has the parameter '{name}', which the export does not know. Known: {string.Join(", ", Parameters.Keys)}; " +
                    "for anything else give an Npgsql connection string (Host=...;Database=...).", nameof(text));
            }

            try
            {
                builder[keyword] = value;
            }
            catch (Exception e) when (e is ArgumentException or FormatException)
            {
                throw new ArgumentException($"The PostgreSQL URI's {name}={value} cannot be used: {e.Message}", nameof(text), e);
            }
        }

        return builder;
    }

    /// <summary>The text without its password, for messages.</summary>
    internal static string Redact(string text)
    {
        var at = text.IndexOf('@', StringComparison.Ordinal);
        var scheme = text.IndexOf("://", StringComparison.Ordinal);
        if (scheme >= 0 && at > scheme)
        {
            var colon = text.IndexOf(':', scheme + 3);
            if (colon > 0 && colon < at)
            {
                return text[..(colon + 1)] + "***" + text[at..];
            }
        }

        return text;
    }

    /// <summary>Where <paramref name="npgsql"/> points, for messages: host:port/database, never the password.</summary>
    public static string Describe(string npgsql)
    {
        var builder = new NpgsqlConnectionStringBuilder(npgsql);
        return $"{builder.Host}:{builder.Port}/{builder.Database ?? builder.Username ?? "(default database)"}";
    }
}
