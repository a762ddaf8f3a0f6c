package io.atoll.client;

import io.atoll.client.proto.ExecuteResponse;

import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Function;

/**
 * The rows of a finished query as the member sent them: its pages, decoded one row at a time
 * while they are iterated. Query results built on it keep one byte array per page rather than
 * several objects per entry, and the objects a caller reads die young, as Hazelcast's lazily
 * deserialized query results do.
 */
final class LazyRows {
    private final List<ExecuteResponse> pages;
    private final int width;
    private final String member;
    private final int size;

    LazyRows(List<ExecuteResponse> pages, int width, String member) {
        this.pages = List.copyOf(pages);
        this.width = width;
        this.member = member;
        long n = 0;
        for (ExecuteResponse p : pages) {
            n += p.getPage().getCount();
        }
        if (n > Integer.MAX_VALUE) {
            throw new InternalException("a query result of " + n + " rows does not fit a collection", member, -1, false, null);
        }
        this.size = (int) n;
    }

    int size() {
        return size;
    }

    /** The rows in order; objects are {@code Data}. */
    Iterator<Object[]> iterator() {
        return new Iterator<>() {
            private int page = -1;
            private RowDecoder decoder;
            private int left;
            private int returned;

            @Override
            public boolean hasNext() {
                return returned < size;
            }

            @Override
            public Object[] next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                while (left == 0) {
                    ExecuteResponse p = pages.get(++page);
                    decoder = new RowDecoder(p.getPage().getRows().asReadOnlyByteBuffer(), member);
                    left = p.getPage().getCount();
                }
                left--;
                returned++;
                return decoder.row(width);
            }
        };
    }

    /** A read-only set whose elements are made from the rows as they are iterated. */
    <E> Set<E> asSet(Function<Object[], E> element) {
        return new ResultSet<>(this, element);
    }

    /** A read-only collection whose elements are made from the rows as they are iterated. */
    <E> Collection<E> asCollection(Function<Object[], E> element) {
        return new ResultCollection<>(this, element);
    }

    private static <E> Iterator<E> mapped(LazyRows rows, Function<Object[], E> element) {
        Iterator<Object[]> it = rows.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public E next() {
                return element.apply(it.next());
            }
        };
    }

    /**
     * Keys, entries: distinct by construction. {@code contains} builds a hash set of the
     * elements once (deserializing them all) and answers from it afterwards.
     */
    private static final class ResultSet<E> extends AbstractSet<E> {
        private final LazyRows rows;
        private final Function<Object[], E> element;
        private Set<E> index;

        ResultSet(LazyRows rows, Function<Object[], E> element) {
            this.rows = rows;
            this.element = element;
        }

        @Override
        public Iterator<E> iterator() {
            return mapped(rows, element);
        }

        @Override
        public int size() {
            return rows.size();
        }

        @Override
        public synchronized boolean contains(Object o) {
            if (index == null) {
                index = new HashSet<>(this);
            }
            return index.contains(o);
        }
    }

    private static final class ResultCollection<E> extends AbstractCollection<E> {
        private final LazyRows rows;
        private final Function<Object[], E> element;

        ResultCollection(LazyRows rows, Function<Object[], E> element) {
            this.rows = rows;
            this.element = element;
        }

        @Override
        public Iterator<E> iterator() {
            return mapped(rows, element);
        }

        @Override
        public int size() {
            return rows.size();
        }
    }
}
