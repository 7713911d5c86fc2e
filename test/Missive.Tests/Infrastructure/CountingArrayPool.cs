using System;
using System.Buffers;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// An array pool that hands out arrays (new ones filled with a marker byte, returned ones reused) and
/// records how often arrays were rented and returned, double or foreign returns, and returns whose
/// array held bytes other than zero or the marker: data left behind.
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

    private readonly ConcurrentDictionary<int, ConcurrentBag<byte[]>> _free = new();

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _rents);
        int size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(minimumLength, 16));
        if (!_free.GetOrAdd(size, _ => []).TryTake(out byte[]? array))
        {
            array = new byte[size];
            array.AsSpan().Fill(Fill);
        }
        else
        {
            _returned.TryRemove(array, out _);
        }

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
            array.AsSpan().Fill(Fill); // count each leak once, not again when the array comes back
        }

        _returned[array] = 1;
        _free.GetOrAdd(array.Length, _ => []).Add(array);
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
