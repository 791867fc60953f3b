/** The page layer: page stores, page memories and their capabilities, the rank pools they hold. */
module org.kvflow.pages {
    requires transitive org.kvflow.core;

    exports org.kvflow.pages;

    uses org.kvflow.pages.PageMemoryProvider;
    uses org.kvflow.pages.RankPoolsProvider;
}
