using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.Tests.Sql;

/// <summary>The native structs match sqlite3.h on 64-bit: a wrong offset would call the wrong function.</summary>
public sealed class SqliteStructLayoutTests
{
    [Fact]
    public void Sqlite3_vfs_is_168_bytes_with_sqlite_h_offsets()
    {
        Assert.Equal(168, Marshal.SizeOf<SqliteVfsStruct>());
        Assert.Equal(16, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.Next)));
        Assert.Equal(24, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.Name)));
        Assert.Equal(32, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.AppData)));
        Assert.Equal(40, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.Open)));
        Assert.Equal(64, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.FullPathname)));
        Assert.Equal(104, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.Randomness)));
        Assert.Equal(136, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.CurrentTimeInt64)));
        Assert.Equal(160, Offset<SqliteVfsStruct>(nameof(SqliteVfsStruct.NextSystemCall)));
    }

    [Fact]
    public void Sqlite3_io_methods_is_152_bytes_with_sqlite_h_offsets()
    {
        Assert.Equal(152, Marshal.SizeOf<SqliteIoMethods>());
        Assert.Equal(8, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.Close)));
        Assert.Equal(16, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.Read)));
        Assert.Equal(56, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.Lock)));
        Assert.Equal(80, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.FileControl)));
        Assert.Equal(96, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.DeviceCharacteristics)));
        Assert.Equal(104, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.ShmMap)));
        Assert.Equal(144, Offset<SqliteIoMethods>(nameof(SqliteIoMethods.Unfetch)));
    }

    [Fact]
    public void Our_sqlite3_file_is_the_methods_pointer_then_the_handle()
    {
        Assert.Equal(16, Marshal.SizeOf<SqliteFile>());
        Assert.Equal(0, Offset<SqliteFile>(nameof(SqliteFile.Methods)));
        Assert.Equal(8, Offset<SqliteFile>(nameof(SqliteFile.Handle)));
    }

    private static int Offset<T>(string field) => (int)Marshal.OffsetOf<T>(field);
}
