-- file: request-tracker5/usr/share/request-tracker5/etc/schema.mysql
CREATE TABLE Attachments (
  id BIGINT NOT NULL  AUTO_INCREMENT,
  TransactionId BIGINT NOT NULL  ,
  Parent BIGINT NOT NULL DEFAULT 0  ,
  MessageId varchar(160) CHARACTER SET ascii NULL  ,
  Subject varchar(255) NULL  ,
  Filename varchar(255) NULL  ,
  ContentType varchar(80) CHARACTER SET ascii NULL  ,
  ContentEncoding varchar(80) CHARACTER SET ascii NULL  ,
  Content LONGBLOB NULL  ,
  Headers LONGTEXT NULL  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Attachments2 ON Attachments (TransactionId)
;;
CREATE INDEX Attachments3 ON Attachments (Parent, TransactionId)
;;
CREATE INDEX Attachments4 ON Attachments (Filename)
;;
CREATE TABLE Queues (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NOT NULL  ,
  Description varchar(255) NULL  ,
  CorrespondAddress varchar(120) NULL,
  CommentAddress varchar(120) NULL,
  Lifecycle varchar(32) NULL,
  SubjectTag varchar(120) NULL,
  SortOrder integer NOT NULL DEFAULT 0 ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  SLADisabled int2 NOT NULL DEFAULT 1 ,
  Disabled int2 NOT NULL DEFAULT 0 ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE UNIQUE INDEX Queues1 ON Queues (Name)
;;
CREATE INDEX Queues2 ON Queues (Disabled)
;;
CREATE TABLE Links (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Base varchar(240) NULL,
  Target varchar(240) NULL,
  Type varchar(20) CHARACTER SET ascii NOT NULL ,
  LocalTarget integer NOT NULL DEFAULT 0  ,
  LocalBase integer NOT NULL DEFAULT 0  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Links2 ON Links (Base,  Type)
;;
CREATE INDEX Links3 ON Links (Target,  Type)
;;
CREATE INDEX Links4 ON Links (Type,LocalBase)
;;
CREATE TABLE Principals (
        id INTEGER  AUTO_INCREMENT not null,
        PrincipalType VARCHAR(16) not null,
        Disabled int2 NOT NULL DEFAULT 0 ,
        PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Groups (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  Domain varchar(64) CHARACTER SET ascii NULL,
  Instance integer,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Groups1 ON Groups (Domain, Name, Instance)
;;
CREATE INDEX Groups2 On Groups (Instance)
;;
CREATE TABLE ScripConditions (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  ExecModule varchar(60) CHARACTER SET ascii NULL,
  Argument VARBINARY(255) NULL  ,
  ApplicableTransTypes varchar(60) CHARACTER SET ascii NULL  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Transactions (
  id BIGINT NOT NULL  AUTO_INCREMENT,
  ObjectType varchar(64) CHARACTER SET ascii NOT NULL,
  ObjectId integer NOT NULL DEFAULT 0  ,
  TimeTaken integer NOT NULL DEFAULT 0  ,
  Type varchar(20) CHARACTER SET ascii NULL,
  Field varchar(255) CHARACTER SET ascii NULL,
  OldValue varchar(255) NULL  ,
  NewValue varchar(255) NULL  ,
  ReferenceType varchar(255) CHARACTER SET ascii NULL,
  OldReference integer NULL  ,
  NewReference integer NULL  ,
  Data varchar(255) NULL  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Transactions1 ON Transactions (ObjectType, ObjectId)
;;
CREATE TABLE Scrips (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Description varchar(255),
  ScripCondition integer NOT NULL DEFAULT 0  ,
  ScripAction integer NOT NULL DEFAULT 0  ,
  CustomIsApplicableCode text NULL  ,
  CustomPrepareCode text NULL  ,
  CustomCommitCode text NULL  ,
  Disabled int2 NOT NULL DEFAULT 0 ,
  Template varchar(200) NOT NULL  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectScrips (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Scrip integer NOT NULL  ,
  Stage varchar(32) CHARACTER SET ascii NOT NULL DEFAULT 'TransactionCreate',
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE UNIQUE INDEX ObjectScrips1 ON ObjectScrips (ObjectId, Scrip)
;;
CREATE TABLE ACL (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  PrincipalType varchar(25) CHARACTER SET ascii NOT NULL, 

  PrincipalId integer NOT NULL DEFAULT 0 , 
  RightName varchar(25) CHARACTER SET ascii NOT NULL,
  ObjectType varchar(25) CHARACTER SET ascii NOT NULL,
  ObjectId integer NOT NULL default 0,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX  ACL1 on ACL(RightName, ObjectType, ObjectId,PrincipalType,PrincipalId)
;;
CREATE TABLE GroupMembers (
  id INTEGER NOT NULL AUTO_INCREMENT,
  GroupId integer NOT NULL DEFAULT 0,
  MemberId integer NOT NULL DEFAULT 0,  
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE UNIQUE INDEX GroupMembers1 on GroupMembers (GroupId, MemberId)
;;
create table CachedGroupMembers (
        id int auto_increment,
        GroupId int, 
        MemberId int, 
        Via int, 
        ImmediateParentId int, 
                               
                               
        Disabled int2 NOT NULL DEFAULT 0 , 
                                           
                                           
                                           
                                           
        PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX DisGrouMem  on CachedGroupMembers (GroupId,MemberId,Disabled)
;;
CREATE INDEX CachedGroupMembers2 on CachedGroupMembers (MemberId, GroupId, Disabled)
;;
CREATE INDEX CachedGroupMembers3 on CachedGroupMembers (MemberId, ImmediateParentId)
;;
CREATE TABLE Users (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NOT NULL  ,
  Password VARCHAR(256) NULL  ,
  AuthToken VARCHAR(16) CHARACTER SET ascii NULL  ,
  Comments TEXT NULL  ,
  Signature TEXT NULL  ,
  EmailAddress varchar(120) NULL  ,
  FreeformContactInfo TEXT NULL  ,
  Organization varchar(200) NULL  ,
  RealName varchar(120) NULL  ,
  NickName varchar(16) NULL  ,
  Lang varchar(16) NULL  ,
  Gecos varchar(16) NULL  ,
  HomePhone varchar(30) NULL  ,
  WorkPhone varchar(30) NULL  ,
  MobilePhone varchar(30) NULL  ,
  PagerPhone varchar(30) NULL  ,
  Address1 varchar(200) NULL  ,
  Address2 varchar(200) NULL  ,
  City varchar(100) NULL  ,
  State varchar(100) NULL  ,
  Zip varchar(16) NULL  ,
  Country varchar(50) NULL  ,
  Timezone varchar(50) NULL  ,
  SMIMECertificate text NULL,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE UNIQUE INDEX Users1 ON Users (Name)
;;
CREATE INDEX Users4 ON Users (EmailAddress)
;;
CREATE TABLE Tickets (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  EffectiveId integer NOT NULL DEFAULT 0  ,
  IsMerged int2 NULL DEFAULT NULL,
  Queue integer NOT NULL DEFAULT 0  ,
  Type varchar(16) CHARACTER SET ascii NULL  ,
  Owner integer NOT NULL DEFAULT 0  ,
  Subject varchar(200) NULL DEFAULT '[no subject]' ,
  InitialPriority integer NOT NULL DEFAULT 0  ,
  FinalPriority integer NOT NULL DEFAULT 0  ,
  Priority integer NOT NULL DEFAULT 0  ,
  TimeEstimated integer NOT NULL DEFAULT 0  ,
  TimeWorked integer NOT NULL DEFAULT 0  ,
  Status varchar(64) NULL  ,
  SLA varchar(64) NULL  ,
  TimeLeft integer NOT NULL DEFAULT 0  ,
  Told DATETIME NULL  ,
  Starts DATETIME NULL  ,
  Started DATETIME NULL  ,
  Due DATETIME NULL  ,
  Resolved DATETIME NULL  ,


  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Tickets1 ON Tickets (Queue, Status)
;;
CREATE INDEX Tickets2 ON Tickets (Owner)
;;
CREATE INDEX Tickets6 ON Tickets (EffectiveId, Type)
;;
CREATE TABLE ScripActions (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  ExecModule varchar(60) CHARACTER SET ascii NULL,
  Argument VARBINARY(255) NULL  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Templates (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Queue integer NOT NULL DEFAULT 0 ,
  Name varchar(200) NOT NULL  ,
  Description varchar(255) NULL  ,
  Type varchar(16) CHARACTER SET ascii NULL  ,
  Content TEXT NULL  ,
  LastUpdated DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectCustomFieldValues (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomField int NOT NULL  ,
  ObjectType varchar(255) CHARACTER SET ascii NOT NULL,     
  ObjectId BIGINT NOT NULL  ,                  
  SortOrder integer NOT NULL DEFAULT 0  ,   

  Content varchar(255) NULL  ,
  LargeContent LONGBLOB NULL,               
  ContentType varchar(80) CHARACTER SET ascii NULL,                 
  ContentEncoding varchar(80) CHARACTER SET ascii NULL  ,           

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Disabled int2 NOT NULL DEFAULT 0 ,        
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX ObjectCustomFieldValues1 ON ObjectCustomFieldValues (Content)
;;
CREATE INDEX ObjectCustomFieldValues2 ON ObjectCustomFieldValues (CustomField,ObjectType,ObjectId)
;;
CREATE TABLE CustomFields (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Type varchar(200) CHARACTER SET ascii NULL  , 
  RenderType varchar(64) CHARACTER SET ascii NULL  ,
  MaxValues integer,            
  Pattern TEXT NULL  ,  
  BasedOn INTEGER NULL,
  ValuesClass varchar(64) CHARACTER SET ascii NULL  ,
  Description varchar(255) NULL  ,
  SortOrder integer NOT NULL DEFAULT 0  ,
  LookupType varchar(255) CHARACTER SET ascii NOT NULL,
  EntryHint varchar(255) NULL,
  UniqueValues int2 NOT NULL DEFAULT 0 ,
  CanonicalizeClass varchar(64) CHARACTER SET ascii NULL  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Disabled int2 NOT NULL DEFAULT 0 ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectCustomFields (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomField integer NOT NULL  ,
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX ObjectCustomFields1 ON ObjectCustomFields (ObjectId)
;;
CREATE TABLE CustomFieldValues (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomField int NOT NULL  ,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  SortOrder integer NOT NULL DEFAULT 0  ,
  Category VARCHAR(255) NULL,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX CustomFieldValues1 ON CustomFieldValues (CustomField)
;;
CREATE TABLE Attributes (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(255) NULL  ,
  Description varchar(255) NULL  ,
  Content LONGBLOB,
  ContentType varchar(16) CHARACTER SET ascii,
  ObjectType varchar(64) CHARACTER SET ascii,
  ObjectId integer, 
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Attributes1 on Attributes(Name)
;;
CREATE INDEX Attributes2 on Attributes(ObjectType, ObjectId)
;;
CREATE TABLE sessions (
    id char(32) NOT NULL,
    a_session LONGBLOB,
    LastUpdated TIMESTAMP,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Classes (
  id int(11) NOT NULL auto_increment,
  Name varchar(255) NOT NULL default '',
  Description varchar(255) NOT NULL default '',
  SortOrder int(11) NOT NULL default '0',
  Disabled int(2) NOT NULL default '0',
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  PRIMARY KEY  (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Articles (
  id int(11) NOT NULL auto_increment,
  Name varchar(255) NOT NULL default '',
  Summary varchar(255) NOT NULL default '',
  SortOrder int(11) NOT NULL default '0',
  Class int(11) NOT NULL default '0',
  Parent int(11) NOT NULL default '0',
  URI varchar(255) character set ascii default NULL,
  Disabled int(2) NOT NULL default '0',
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  PRIMARY KEY  (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Topics (
  id int(11) NOT NULL auto_increment,
  Parent int(11) NOT NULL default '0',
  Name varchar(255) NOT NULL default '',
  Description varchar(255) NOT NULL default '',
  ObjectType varchar(64) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  PRIMARY KEY  (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectTopics (
  id int(11) NOT NULL auto_increment,
  Topic int(11) NOT NULL default '0',
  ObjectType varchar(64) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  PRIMARY KEY  (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectClasses (
  id int(11) NOT NULL auto_increment,
  Class int(11) NOT NULL default '0',
  ObjectType varchar(255) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  PRIMARY KEY  (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE Assets (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL DEFAULT '',
    Catalog           int(11)         NOT NULL DEFAULT 0,
    Status            varchar(64)     NOT NULL DEFAULT '',
    Description       varchar(255)    NOT NULL DEFAULT '',
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX AssetsName ON Assets (Name)
;;
CREATE INDEX AssetsStatus ON Assets (Status)
;;
CREATE INDEX AssetsCatalog ON Assets (Catalog)
;;
CREATE TABLE Catalogs (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL DEFAULT '',
    Lifecycle         varchar(32)     NOT NULL DEFAULT 'assets',
    Description       varchar(255)    NOT NULL DEFAULT '',
    Disabled          int2            NOT NULL DEFAULT 0,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX CatalogsName ON Catalogs (Name)
;;
CREATE INDEX CatalogsDisabled ON Catalogs (Disabled)
;;
CREATE TABLE CustomRoles (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  MaxValues integer,
  EntryHint varchar(255) NULL  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Disabled int2 NOT NULL DEFAULT 0 ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE TABLE ObjectCustomRoles (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomRole integer NOT NULL  ,
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE UNIQUE INDEX ObjectCustomRoles1 ON ObjectCustomRoles (ObjectId, CustomRole)
;;
CREATE TABLE Configurations (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL,
    Content           longblob        NULL,
    ContentType       varchar(80)     CHARACTER SET ascii NULL,
    Disabled          int2            NOT NULL DEFAULT 0,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX Configurations1 ON Configurations (Name, Disabled)
;;
CREATE INDEX Configurations2 ON Configurations (Disabled)
;;
CREATE TABLE AuthTokens (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Owner             int(11)         NOT NULL DEFAULT 0,
    Token             varchar(256)    NULL,
    Description       varchar(255)    NOT NULL DEFAULT '',
    LastUsed          datetime                 DEFAULT NULL,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX AuthTokensOwner ON AuthTokens (Owner)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.1.0/schema.mysql
CREATE TABLE Attributes (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(255) NULL  ,
  Description varchar(255) NULL  ,
  Content text,
  ContentType varchar(16),
  ObjectType varchar(64),
  ObjectId integer, 
  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB
;;
CREATE INDEX Attributes1 on Attributes(Name)
;;
CREATE INDEX Attributes2 on Attributes(ObjectType, ObjectId)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.3.0/schema.mysql
drop index transactions1 ON Transactions
;;
alter Table Transactions
    ADD COLUMN  (ObjectType varchar(64) not null),
    DROP COLUMN EffectiveTicket,
    ADD COLUMN  ReferenceType varchar(255) NULL,
    ADD COLUMN  OldReference integer NULL,
    ADD COLUMN  NewReference integer NULL,
    CHANGE      Ticket ObjectId integer NOT NULL DEFAULT 0
;;
alter table TicketCustomFieldValues rename ObjectCustomFieldValues,
    change Ticket ObjectId integer NOT NULL DEFAULT 0  ,
    add column ObjectType varchar(255) not null,
    add column Current bool default 1,
    add column LargeContent LONGTEXT NULL,
    add column ContentType varchar(80) NULL,
    add column ContentEncoding varchar(80) NULL
;;
CREATE TABLE ObjectCustomFields (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomField int NOT NULL  ,
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB
;;
alter table CustomFields add column LookupType varchar(255) NOT NULL,
    add column Repeated int2 NOT NULL DEFAULT 0 ,
    add column Pattern varchar(255) NULL,
    add column MaxValues integer
;;
alter table CustomFields drop column Queue
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.3.11/schema.mysql
ALTER TABLE ObjectCustomFieldValues ADD COLUMN SortOrder INTEGER NOT NULL DEFAULT 0,
                                    ADD COLUMN Disabled int2 NOT NULL DEFAULT 0
;;
ALTER TABLE ObjectCustomFieldValues DROP COLUMN Current
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.7.3/schema.mysql
ALTER TABLE CustomFields CHANGE Pattern Pattern TEXT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.9.3/schema.mysql
ALTER TABLE ACL
    DROP COLUMN DelegatedBy,
    DROP COLUMN DelegatedFrom
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.9.5/schema.mysql
alter Table CustomFieldValues ADD Column Category varchar(255)
;;
ALTER TABLE Groups
    ADD COLUMN Creator integer NOT NULL DEFAULT 0,
    ADD COLUMN Created DATETIME NULL,
    ADD COLUMN LastUpdatedBy integer NOT NULL DEFAULT 0,
    ADD COLUMN LastUpdated DATETIME NULL
;;
ALTER TABLE GroupMembers
    ADD COLUMN Creator integer NOT NULL DEFAULT 0,
    ADD COLUMN Created DATETIME NULL,
    ADD COLUMN LastUpdatedBy integer NOT NULL DEFAULT 0,
    ADD COLUMN LastUpdated DATETIME NULL
;;
ALTER TABLE ACL
    ADD COLUMN Creator integer NOT NULL DEFAULT 0,
    ADD COLUMN Created DATETIME NULL,
    ADD COLUMN LastUpdatedBy integer NOT NULL DEFAULT 0,
    ADD COLUMN LastUpdated DATETIME NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.9.6/schema.mysql
ALTER TABLE Tickets Modify Status varchar(64)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.9.7/schema.mysql
ALTER TABLE Users ADD COLUMN AuthToken VARCHAR(16) CHARACTER SET ascii NULL
;;
ALTER TABLE CustomFields
    ADD COLUMN BasedOn INTEGER NULL,
    ADD COLUMN RenderType VARCHAR(64) NULL,
    ADD COLUMN ValuesClass VARCHAR(64) CHARACTER SET ascii NULL
;;
ALTER TABLE Queues
    ADD COLUMN SubjectTag VARCHAR(120) NULL,
    ADD COLUMN Lifecycle VARCHAR(32) NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/3.9.8/schema.mysql
DROP TABLE IF EXISTS Classes
;;
CREATE TABLE Classes (
  id int(11) NOT NULL auto_increment,
  Name varchar(255) NOT NULL default '',
  Description varchar(255) NOT NULL default '',
  SortOrder int(11) NOT NULL default '0',
  Disabled int(2) NOT NULL default '0',
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  HotList int(2) NOT NULL default '0',
  PRIMARY KEY  (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
DROP TABLE IF EXISTS Articles
;;
CREATE TABLE Articles (
  id int(11) NOT NULL auto_increment,
  Name varchar(255) NOT NULL default '',
  Summary varchar(255) NOT NULL default '',
  SortOrder int(11) NOT NULL default '0',
  Class int(11) NOT NULL default '0',
  Parent int(11) NOT NULL default '0',
  URI varchar(255) character set ascii default NULL,
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  PRIMARY KEY  (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
DROP TABLE IF EXISTS Topics
;;
CREATE TABLE Topics (
  id int(11) NOT NULL auto_increment,
  Parent int(11) NOT NULL default '0',
  Name varchar(255) NOT NULL default '',
  Description varchar(255) NOT NULL default '',
  ObjectType varchar(64) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  PRIMARY KEY  (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
DROP TABLE IF EXISTS ObjectTopics
;;
CREATE TABLE ObjectTopics (
  id int(11) NOT NULL auto_increment,
  Topic int(11) NOT NULL default '0',
  ObjectType varchar(64) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  PRIMARY KEY  (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
DROP TABLE IF EXISTS ObjectClasses
;;
CREATE TABLE ObjectClasses (
  id int(11) NOT NULL auto_increment,
  Class int(11) NOT NULL default '0',
  ObjectType varchar(255) character set ascii NOT NULL default '',
  ObjectId int(11) NOT NULL default '0',
  Creator int(11) NOT NULL default '0',
  Created datetime default NULL,
  LastUpdatedBy int(11) NOT NULL default '0',
  LastUpdated datetime default NULL,
  PRIMARY KEY  (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.0.0rc2/schema.mysql
DROP TABLE IF EXISTS sessions
;;
CREATE TABLE sessions (
    id char(32) NOT NULL,
    a_session LONGBLOB,
    LastUpdated TIMESTAMP,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET ascii
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.0.0rc4/schema.mysql
ALTER TABLE Users MODIFY Password varchar(256)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.0.6/schema.mysql
ALTER TABLE Attributes MODIFY Content LONGBLOB
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.0.19/schema.mysql
ALTER TABLE Users MODIFY EmailAddress varchar(120) CHARACTER SET utf8
;;
ALTER TABLE Queues
    MODIFY Lifecycle varchar(32) CHARACTER SET utf8,
    MODIFY CorrespondAddress varchar(120) CHARACTER SET utf8,
    MODIFY CommentAddress varchar(120) CHARACTER SET utf8
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.1/schema.mysql
DROP TABLE IF EXISTS ObjectScrips
;;
CREATE TABLE ObjectScrips (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Scrip integer NOT NULL  ,
  Stage varchar(32) CHARACTER SET ascii NOT NULL DEFAULT 'TransactionCreate',
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8
;;
ALTER TABLE Scrips ADD COLUMN Disabled int2 NOT NULL DEFAULT 0
;;
CREATE UNIQUE INDEX ObjectScrips1 ON ObjectScrips (ObjectId, Scrip)
;;
ALTER TABLE Scrips
    DROP COLUMN Stage,
    DROP COLUMN Queue
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.5/schema.mysql
ALTER TABLE Scrips CHANGE Template Template varchar(200) NOT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.8/schema.mysql
ALTER TABLE Tickets ADD COLUMN IsMerged int2 NULL DEFAULT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.11/schema.mysql
ALTER TABLE CustomFields DROP COLUMN Repeated
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.14/schema.mysql
ALTER TABLE Scrips
    DROP COLUMN ConditionRules,
    DROP COLUMN ActionRules
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.19/schema.mysql
ALTER TABLE Templates
    DROP COLUMN Language,
    DROP COLUMN TranslationOf
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.1.22/schema.mysql
ALTER TABLE Users ADD COLUMN SMIMECertificate TEXT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.2.2/schema.mysql
ALTER TABLE Users MODIFY EmailAddress varchar(120) CHARACTER SET utf8
;;
ALTER TABLE Queues
    MODIFY Lifecycle varchar(32) CHARACTER SET utf8,
    MODIFY CorrespondAddress varchar(120) CHARACTER SET utf8,
    MODIFY CommentAddress varchar(120) CHARACTER SET utf8
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.2.6/schema.mysql
ALTER TABLE Links
  DEFAULT CHARACTER SET utf8,
  MODIFY Base   varchar(240) CHARACTER SET utf8 NULL,
  MODIFY Target varchar(240) CHARACTER SET utf8 NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.1/schema.mysql
ALTER TABLE CustomFields ADD COLUMN EntryHint VARCHAR(255) NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.2/schema.mysql
ALTER TABLE Queues ADD COLUMN SortOrder integer NOT NULL DEFAULT 0
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.3/schema.mysql
ALTER TABLE Queues
    DROP COLUMN InitialPriority,
    DROP COLUMN FinalPriority,
    DROP COLUMN DefaultDueIn
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.7/schema.mysql
ALTER TABLE Articles ADD COLUMN Disabled int(2) NOT NULL DEFAULT 0
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.8/schema.mysql
ALTER TABLE Tickets ADD COLUMN SLA VARCHAR(64) NULL
;;
ALTER TABLE Queues ADD COLUMN SLADisabled int2 NOT NULL DEFAULT 1
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.10/schema.mysql
CREATE TABLE Assets (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL DEFAULT '',
    Catalog           int(11)         NOT NULL DEFAULT 0,
    Status            varchar(64)     NOT NULL DEFAULT '',
    Description       varchar(255)    NOT NULL DEFAULT '',
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
CREATE INDEX AssetsName ON Assets (Name)
;;
CREATE INDEX AssetsStatus ON Assets (Status)
;;
CREATE INDEX AssetsCatalog ON Assets (Catalog)
;;
CREATE TABLE Catalogs (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL DEFAULT '',
    Lifecycle         varchar(32)     NOT NULL DEFAULT 'assets',
    Description       varchar(255)    NOT NULL DEFAULT '',
    Disabled          int2            NOT NULL DEFAULT 0,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
CREATE INDEX CatalogsName ON Catalogs (Name)
;;
CREATE INDEX CatalogsDisabled ON Catalogs (Disabled)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.12/schema.mysql
CREATE TABLE CustomRoles (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  Name varchar(200) NULL  ,
  Description varchar(255) NULL  ,
  MaxValues integer,
  EntryHint varchar(255) NULL  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  Disabled int2 NOT NULL DEFAULT 0 ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8
;;
CREATE TABLE ObjectCustomRoles (
  id INTEGER NOT NULL  AUTO_INCREMENT,
  CustomRole integer NOT NULL  ,
  ObjectId integer NOT NULL,
  SortOrder integer NOT NULL DEFAULT 0  ,

  Creator integer NOT NULL DEFAULT 0  ,
  Created DATETIME NULL  ,
  LastUpdatedBy integer NOT NULL DEFAULT 0  ,
  LastUpdated DATETIME NULL  ,
  PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8
;;
CREATE UNIQUE INDEX ObjectCustomRoles1 ON ObjectCustomRoles (ObjectId, CustomRole)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.3.13/schema.mysql
ALTER TABLE Tickets
  DROP COLUMN IssueStatement,
  DROP COLUMN Resolution,
  DROP COLUMN Disabled
;;
ALTER TABLE Users
  DROP COLUMN EmailEncoding,
  DROP COLUMN WebEncoding,
  DROP COLUMN ExternalContactInfoId,
  DROP COLUMN ContactInfoSystem,
  DROP COLUMN ExternalAuthId,
  DROP COLUMN AuthSystem,
  DROP COLUMN PGPKey
;;
ALTER TABLE Principals
  DROP COLUMN ObjectId
;;
ALTER TABLE Groups
   DROP COLUMN Type
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.4.2/schema.mysql
ALTER TABLE CustomFields ADD COLUMN UniqueValues int2 NOT NULL DEFAULT 0
;;
ALTER TABLE CustomFields ADD COLUMN CanonicalizeClass varchar(64) CHARACTER SET ascii NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.0/schema.mysql
ALTER TABLE Classes DROP COLUMN HotList
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.1/schema.mysql
CREATE TABLE Configurations (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Name              varchar(255)    NOT NULL,
    Content           longblob        NULL,
    ContentType       varchar(80)     CHARACTER SET ascii NULL,
    Disabled          int2            NOT NULL DEFAULT 0,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
CREATE INDEX Configurations1 ON Configurations (Name, Disabled)
;;
CREATE INDEX Configurations2 ON Configurations (Disabled)
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.2/schema.mysql
ALTER TABLE `Attachments` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Queues` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Links` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Principals` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Groups` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ScripConditions` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Transactions` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Scrips` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectScrips` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ACL` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `GroupMembers` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `CachedGroupMembers` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Users` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Tickets` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ScripActions` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Templates` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectCustomFieldValues` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `CustomFields` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectCustomFields` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `CustomFieldValues` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Attributes` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Classes` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Articles` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Topics` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectTopics` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectClasses` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Assets` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Catalogs` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `CustomRoles` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `ObjectCustomRoles` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `Configurations` CONVERT TO CHARACTER SET utf8mb4
;;
ALTER TABLE `sessions` CONVERT TO CHARACTER SET utf8mb4
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.3/schema.mysql
ALTER TABLE Transactions MODIFY Field VARCHAR(255) CHARACTER SET ascii DEFAULT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.4/schema.mysql
ALTER TABLE Attachments MODIFY id BIGINT NOT NULL AUTO_INCREMENT, MODIFY TransactionId BIGINT NOT NULL, MODIFY Parent BIGINT NOT NULL DEFAULT 0
;;
ALTER TABLE Transactions MODIFY id BIGINT NOT NULL AUTO_INCREMENT
;;
ALTER TABLE ObjectCustomFieldValues MODIFY ObjectId BIGINT NOT NULL
;;
-- file: request-tracker5/usr/share/request-tracker5/etc/upgrade/4.5.7/schema.mysql
CREATE TABLE AuthTokens (
    id                int(11)         NOT NULL AUTO_INCREMENT,
    Owner             int(11)         NOT NULL DEFAULT 0,
    Token             varchar(256)    NULL,
    Description       varchar(255)    NOT NULL DEFAULT '',
    LastUsed          datetime                 DEFAULT NULL,
    Creator           int(11)         NOT NULL DEFAULT 0,
    Created           datetime                 DEFAULT NULL,
    LastUpdatedBy     int(11)         NOT NULL DEFAULT 0,
    LastUpdated       datetime                 DEFAULT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB CHARACTER SET utf8mb4
;;
CREATE INDEX AuthTokensOwner ON AuthTokens (Owner)
;;
