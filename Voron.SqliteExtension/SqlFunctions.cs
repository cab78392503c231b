using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteExtension;

/// <summary>
/// voron_open(path), voron_open(path, key_file) and voron_close(), as SQL functions. Each answers a text or a SQL error
/// (sqlite3_result_error) with <see cref="OpenStore"/>'s message; no exception leaves them.
/// </summary>
internal static unsafe class SqlFunctions
{
    /// <summary>SQLITE_TEXT.</summary>
    private const int TextType = 3;

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static void Open(nint context, int count, nint* arguments)
    {
        try
        {
            var path = count >= 1 && SqliteNative.ValueType(arguments[0]) == TextType
                ? SqliteNative.Utf8String(SqliteNative.ValueText(arguments[0]))
                : null;
            if (count == 2 && SqliteNative.ValueType(arguments[1]) != TextType)
            {
                throw new ExtensionException("voron_open(path, key_file): key_file must be the path of the store's key file, as text.");
            }

            var keyFile = count == 2 ? SqliteNative.Utf8String(SqliteNative.ValueText(arguments[1])) : null;
            Answer(context, OpenStore.Open(path, keyFile));
        }
        catch (ExtensionException e)
        {
            Fail(context, e.Message);
        }
        catch (Exception e)
        {
            Fail(context, $"voron_open failed: {e.Message}");
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    public static void Close(nint context, int count, nint* arguments)
    {
        try
        {
            Answer(context, OpenStore.Close());
        }
        catch (ExtensionException e)
        {
            Fail(context, e.Message);
        }
        catch (Exception e)
        {
            Fail(context, $"voron_close failed: {e.Message}");
        }
    }

    private static void Answer(nint context, string text)
    {
        var bytes = Encoding.UTF8.GetBytes(text);
        fixed (byte* p = bytes)
        {
            SqliteNative.ResultText(context, p, bytes.Length, SqliteNative.Transient);
        }
    }

    private static void Fail(nint context, string message)
    {
        var bytes = Encoding.UTF8.GetBytes(message);
        fixed (byte* p = bytes)
        {
            SqliteNative.ResultError(context, p, bytes.Length); // SQLite copies the message
        }
    }
}
