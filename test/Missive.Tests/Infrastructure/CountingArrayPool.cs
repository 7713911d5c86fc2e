using System;
using System.Buffers;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// An array pool that hands out fresh arrays filled with a marker byte and records, for every
/// array, how often it was rented and returned and whether its used region was zero on return.
/// </summary>
public sealed class CountingArrayPool : ArrayPool<byte>
{
    /// <summary>Bytes a fresh array is filled with, so "cleared" can be told apart from "never written".</summary>
    public const byte Fill = 0xCD;

    private readonly ConcurrentDictionary<byte[], int> _outstanding = new(ReferenceEqualityComparer.Instance);
    private readonly ConcurrentDictionary<byte[], int> _returned = new(ReferenceEqualityComparer.Instance);
    private int _rents;
    private int _returns;
    private int _doubleReturns;
    private int _foreignReturns;
    private int _dirtyReturns;

    public int Rents => _rents;

    public int Returns => _returns;

    public int DoubleReturns => _doubleReturns;

    public int ForeignReturns => _foreignReturns;

    /// <summary>Returns whose array held bytes other than zero or <see cref="Fill"/>: envelope data left behind.</summary>
    public int DirtyReturns => _dirtyReturns;

    public int Outstanding => _outstanding.Count;

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _rents);
        byte[] array = new byte[Math.Max(minimumLength, 16)];
        array.AsSpan().Fill(Fill);
        _outstanding[array] = 1;
        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Increment(ref _returns);
        if (!_outstanding.TryRemove(array, out _))
        {
            if (_returned.ContainsKey(array))
            {
                Interlocked.Increment(ref _doubleReturns);
            }
            else
            {
                Interlocked.Increment(ref _foreignReturns);
            }

            return;
        }

        if (!clearArray && !IsClean(array))
        {
            Interlocked.Increment(ref _dirtyReturns);
        }

        _returned[array] = 1;
    }

    private static bool IsClean(byte[] array)
    {
        foreach (byte b in array)
        {
            if (b != 0 && b != Fill)
            {
                return false;
            }
        }

        return true;
    }
}
