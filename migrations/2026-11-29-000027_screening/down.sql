DROP TABLE screening_checks;
DROP TABLE screening_entries;
DROP TABLE screening_lists;
