using Npgsql;
using Voron.PostgreSql.Export;

namespace Voron.PostgreSql.Tests;

/// <summary>The connection strings people paste: libpq URIs and Npgsql's keyword form (no server needed).</summary>
public sealed class ConnectionStringTests
{
    [Fact]
    public void A_URI_becomes_the_Npgsql_connection_string_with_its_parts_unescaped()
    {
        var builder = new NpgsqlConnectionStringBuilder(ConnectionStrings.ToNpgsql("postgresql://app%40corp:p%3Ass%2Fw@db.internal:6543/shop%20eu?sslmode=require&application_name=voron%20export&connect_timeout=7"));
        Assert.Equal("db.internal", builder.Host);
        Assert.Equal(6543, builder.Port);
        Assert.Equal("app@corp", builder.Username);
        Assert.Equal("p:ss/w", builder.Password);
        Assert.Equal("shop eu", builder.Database);
        Assert.Equal(SslMode.Require, builder.SslMode);
        Assert.Equal("voron export", builder.ApplicationName);
        Assert.Equal(7, builder.Timeout);
    }

    [Theory]
    [InlineData("postgres://localhost/db", "localhost", 5432, "db")]
    [InlineData("postgresql:///db", "localhost", 5432, "db")]
    [InlineData("postgresql://[::1]:5433/db", "::1", 5433, "db")]
    [InlineData("Host=10.0.0.5;Port=5999;Database=x;Username=u", "10.0.0.5", 5999, "x")]
    public void Host_port_and_database_are_read_from_either_form(string text, string host, int port, string database)
    {
        var builder = new NpgsqlConnectionStringBuilder(ConnectionStrings.ToNpgsql(text));
        Assert.Equal((host, port, database), (builder.Host, builder.Port, builder.Database));
    }

    [Fact]
    public void A_password_never_appears_in_what_the_messages_print()
    {
        Assert.Equal("postgresql://app:***@db:5432/shop", ConnectionStrings.Redact("postgresql://app:secret@db:5432/shop"));
        Assert.Equal("postgresql://app@db/shop", ConnectionStrings.Redact("postgresql://app@db/shop"));
        Assert.DoesNotContain("secret", ConnectionStrings.Describe(ConnectionStrings.ToNpgsql("postgresql://app:secret@db:5432/shop")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("postgresql://db/a/b", "has a '/'")]
    [InlineData("postgresql://db/shop?sslmode=sometimes", "sslmode=sometimes cannot be used")]
    public void A_URI_that_cannot_name_one_database_is_refused_saying_why(string text, string expected)
    {
        var error = Assert.Throws<ArgumentException>(() => ConnectionStrings.ToNpgsql(text));
        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }
}
